// Tests of the parameter server's pieces in one process: how a key is split over servers
// (MXNet 1.9.1's placement, 2-bit-aligned parts) and the ZeroMQ Van (delivery between two
// nodes, payload intact, malformed bytes dropped without harm).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#if MXNET_USE_DIST_KVSTORE
#include "kvstore/dist/kvstore_dist.h"
#include "kvstore/dist/van.h"

namespace {

using mxnet::kvstore::dist::KeyLayout;
using mxnet::kvstore::dist::MakeKeyLayout;
using mxnet::kvstore::dist::Message;
using mxnet::kvstore::dist::MsgType;
using mxnet::kvstore::dist::Van;

TEST(KVStoreDistLayout, small_array_goes_whole_to_the_server_mxnet_picks) {
  for (int key : {0, 1, 7, 12345}) {
    KeyLayout l = MakeKeyLayout(key, 1000, 3, 1000000);
    ASSERT_EQ(l.server.size(), 1u);
    EXPECT_EQ(l.server[0], (key * 9973) % 3);
    EXPECT_EQ(l.begin[0], 0);
    EXPECT_EQ(l.len[0], 1000);
    EXPECT_EQ(l.clen[0], (1000 + 15) / 16);
  }
}

TEST(KVStoreDistLayout, big_array_parts_cover_it_at_multiples_of_16) {
  for (int64_t n : {int64_t{1000000}, int64_t{1000001}, int64_t{1440000}, int64_t{1466521}}) {
    for (int servers : {1, 2, 3, 5}) {
      KeyLayout l = MakeKeyLayout(3, n, servers, 1000000);
      ASSERT_EQ(l.server.size(), static_cast<size_t>(servers));
      int64_t next = 0, cnext = 0;
      for (size_t p = 0; p < l.server.size(); ++p) {
        EXPECT_EQ(l.begin[p], next);
        EXPECT_EQ(l.cbegin[p], cnext);
        EXPECT_EQ(l.begin[p] % 16, 0);
        EXPECT_EQ(l.clen[p], (l.len[p] + 15) / 16) << "part " << p << " of " << n;
        next += l.len[p];
        cnext += l.clen[p];
      }
      EXPECT_EQ(next, n);
      EXPECT_EQ(cnext, (n + 15) / 16);
    }
  }
}

TEST(KVStoreDistLayout, tiny_bound_leaves_out_empty_parts) {
  KeyLayout l = MakeKeyLayout(0, 20, 4, 1);  // 2 words over 4 servers
  int64_t total = 0;
  for (int64_t len : l.len) {
    EXPECT_GT(len, 0);
    total += len;
  }
  EXPECT_EQ(total, 20);
}

struct Inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Message> got;
  bool WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return got.size() >= n; });
  }
};

TEST(KVStoreDistVan, delivers_header_body_and_payload_and_drops_garbage) {
  Van a, b;
  Inbox inbox;
  const int port_b = b.Bind(0);
  a.Bind(0);
  b.Start([&](Message&& m) {
    std::lock_guard<std::mutex> lock(inbox.mu);
    inbox.got.push_back(std::move(m));
    inbox.cv.notify_all();
  });
  a.Start([](Message&&) {});

  // Garbage on the listening port first: a raw TCP client writing random bytes.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_b);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const char junk[] = "\xff\x00\x13garbage that is not ZMTP\x01\x02";
  ASSERT_GT(write(fd, junk, sizeof(junk)), 0);
  close(fd);

  a.Connect(2, "127.0.0.1", port_b);
  auto payload = std::make_shared<std::vector<float>>(1000);
  std::iota(payload->begin(), payload->end(), 0.5f);
  Message m;
  m.head.type = MsgType::kPush;
  m.head.key = 42;
  m.head.num_elems = 1000;
  m.body = "hello";
  m.payload = reinterpret_cast<const char*>(payload->data());
  m.payload_size = payload->size() * sizeof(float);
  m.payload_owner = payload;
  a.Send(2, m);
  Message plain;
  plain.head.type = MsgType::kPull;
  a.Send(2, plain);
  ASSERT_TRUE(inbox.WaitFor(2));
  const Message& got = inbox.got[0];
  EXPECT_EQ(got.head.type, MsgType::kPush);
  EXPECT_EQ(got.head.key, 42);
  EXPECT_EQ(got.body, "hello");
  ASSERT_EQ(got.payload_size, 4000u);
  EXPECT_EQ(0, std::memcmp(got.payload, payload->data(), 4000));
  EXPECT_EQ(inbox.got[1].head.type, MsgType::kPull);
  EXPECT_EQ(inbox.got[1].payload_size, 0u);
  a.Stop();
  b.Stop();
}

TEST(KVStoreDistVan, a_message_without_the_jobs_secret_is_dropped) {
  Van receiver("job-secret"), intruder("wrong"), member("job-secret");
  Inbox inbox;
  const int port = receiver.Bind(0);
  receiver.Start([&](Message&& m) {
    std::lock_guard<std::mutex> lock(inbox.mu);
    inbox.got.push_back(std::move(m));
    inbox.cv.notify_all();
  });
  intruder.Start([](Message&&) {});
  member.Start([](Message&&) {});
  intruder.Connect(1, "127.0.0.1", port);
  member.Connect(1, "127.0.0.1", port);
  Message bad;
  bad.head.type = MsgType::kAddNode;
  bad.body = "intruder";
  intruder.Send(1, bad);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Message good;
  good.head.type = MsgType::kAddNode;
  good.body = "member";
  member.Send(1, good);
  ASSERT_TRUE(inbox.WaitFor(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::lock_guard<std::mutex> lock(inbox.mu);
  ASSERT_EQ(inbox.got.size(), 1u);
  EXPECT_EQ(inbox.got[0].body, "member");
}

TEST(KVStoreDistVan, busy_port_is_an_error_naming_it) {
  Van a, b;
  const int port = a.Bind(0);
  try {
    b.Bind(port);
    FAIL() << "binding a port in use succeeded";
  } catch (const dmlc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("port " + std::to_string(port)), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
  }
}

}  // namespace
#endif  // MXNET_USE_DIST_KVSTORE
