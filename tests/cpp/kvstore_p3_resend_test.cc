// dist_p3's pieces (slice layout, priority-ordered sending with a bounded window) and
// PS_RESEND's (numbering, acks, duplicate detection, and delivery over a Van that drops
// a third of what it receives), in one process.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#if MXNET_USE_DIST_KVSTORE
#include "kvstore/dist/kvstore_dist.h"
#include "kvstore/dist/priority_sender.h"
#include "kvstore/dist/resender.h"
#include "kvstore/dist/van.h"

namespace {

using mxnet::kvstore::dist::KeyLayout;
using mxnet::kvstore::dist::MakeP3KeyLayout;
using mxnet::kvstore::dist::Message;
using mxnet::kvstore::dist::MsgType;
using mxnet::kvstore::dist::PrioritySender;
using mxnet::kvstore::dist::Resender;
using mxnet::kvstore::dist::Van;
using mxnet::kvstore::dist::VanOptions;

TEST(KVStoreP3Layout, slices_of_the_threshold_round_robin_over_keys) {
  int next = 0;
  KeyLayout a = MakeP3KeyLayout(100001, 3, 40000, &next);  // 40000, 40000, 20001
  ASSERT_EQ(a.len, (std::vector<int64_t>{40000, 40000, 20001}));
  EXPECT_EQ(a.begin, (std::vector<int64_t>{0, 40000, 80000}));
  EXPECT_EQ(a.server, (std::vector<int>{0, 1, 2}));
  KeyLayout b = MakeP3KeyLayout(5, 3, 40000, &next);  // the counter goes on: server 0
  ASSERT_EQ(b.len, (std::vector<int64_t>{5}));
  EXPECT_EQ(b.server, (std::vector<int>{0}));
  KeyLayout c = MakeP3KeyLayout(80000, 3, 40000, &next);
  EXPECT_EQ(c.server, (std::vector<int>{1, 2}));
  EXPECT_EQ(next, 6);
  EXPECT_TRUE(MakeP3KeyLayout(0, 3, 40000, &next).server.empty());
  EXPECT_THROW(MakeP3KeyLayout(10, 2, 0, &next), dmlc::Error);
}

Message Request(int id, int part) {
  Message m;
  m.head.type = MsgType::kPush;
  m.head.request_id = id;
  m.head.part = part;
  return m;
}

TEST(KVStoreP3Sender, higher_priority_passes_what_waits_within_the_window) {
  std::vector<std::pair<int, int>> sent;  // (request, part)
  PrioritySender s(2, [&](int dest, Message&& m) {
    EXPECT_EQ(dest, 8 + 2 * (m.head.part % 2));
    sent.emplace_back(m.head.request_id, m.head.part);
  });
  // Request 0 (priority -5, a late layer) has 4 slices; 2 leave at once.
  for (int p = 0; p < 4; ++p) s.Enqueue(-5, 8 + 2 * (p % 2), Request(0, p));
  EXPECT_EQ(sent.size(), 2u);
  EXPECT_EQ(s.in_flight(), 2u);
  EXPECT_EQ(s.queued(), 2u);
  // Request 1 (priority 0, the first layer) comes later but goes first.
  s.Enqueue(0, 8, Request(1, 0));
  s.Enqueue(0, 10, Request(1, 1));
  s.OnReply(7, 0);  // not ours: frees nothing
  EXPECT_EQ(sent.size(), 2u);
  s.OnReply(0, 1);
  s.OnReply(0, 0);
  s.OnReply(1, 0);
  s.OnReply(1, 1);
  s.OnReply(0, 2);
  s.OnReply(0, 3);
  const std::vector<std::pair<int, int>> want = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}};
  EXPECT_EQ(sent, want);
  EXPECT_EQ(s.in_flight(), 0u);
  for (int p = 0; p < 3; ++p) s.Enqueue(-1, 8 + 2 * (p % 2), Request(2, p));
  EXPECT_EQ(s.queued(), 1u);
  s.Clear();
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.in_flight(), 0u);
  EXPECT_THROW(PrioritySender(0, [](int, Message&&) {}), dmlc::Error);
}

TEST(KVStoreResender, duplicates_are_found_and_memory_stays_small) {
  Resender r(60000, [](int, const Message&) {});
  EXPECT_FALSE(r.SeenBefore(9, 2));
  EXPECT_FALSE(r.SeenBefore(9, 1));
  EXPECT_TRUE(r.SeenBefore(9, 1));
  EXPECT_TRUE(r.SeenBefore(9, 2));
  EXPECT_FALSE(r.SeenBefore(11, 1));  // numbers are per sender
  EXPECT_FALSE(r.SeenBefore(9, 3));
  EXPECT_TRUE(r.SeenBefore(9, 3));
  EXPECT_TRUE(Resender::Tracked(MsgType::kPush));
  EXPECT_TRUE(Resender::Tracked(MsgType::kBarrier));
  EXPECT_FALSE(Resender::Tracked(MsgType::kAck));
  EXPECT_FALSE(Resender::Tracked(MsgType::kHeartbeat));
  EXPECT_FALSE(Resender::Tracked(MsgType::kAddNode));
}

TEST(KVStoreResender, numbers_per_receiver_and_resends_until_acked) {
  std::mutex mu;
  std::vector<std::pair<int, int>> resent;
  Resender r(20, [&](int dest, const Message& m) {
    std::lock_guard<std::mutex> lock(mu);
    resent.emplace_back(dest, m.head.seq);
  });
  Message a = Request(0, 0), b = Request(1, 0), c = Request(2, 0);
  r.Track(8, &a);
  r.Track(10, &b);
  r.Track(8, &c);
  EXPECT_EQ(a.head.seq, 1);
  EXPECT_EQ(b.head.seq, 1);
  EXPECT_EQ(c.head.seq, 2);
  r.OnAck(8, 1);
  r.OnAck(10, 1);
  EXPECT_EQ(r.unacked(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  r.OnAck(8, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_FALSE(resent.empty());
  const auto n = resent.size();
  for (const auto& d : resent) EXPECT_EQ(d, std::make_pair(8, 2));
  EXPECT_EQ(r.unacked(), 0u);
  EXPECT_EQ(r.resent(), static_cast<int64_t>(n));
}

// Two Vans that both drop 30% of what they receive (data and acks): with PS_RESEND's
// resending every message still arrives, exactly once.
TEST(KVStoreResender, every_message_arrives_once_over_a_lossy_van) {
  VanOptions lossy;
  lossy.resend = true;
  lossy.resend_timeout_ms = 30;
  lossy.drop_percent = 30;
  Van a("s", lossy), b("s", lossy);
  std::mutex mu;
  std::condition_variable cv;
  std::map<int, int> got;  // key -> times delivered
  const int port_a = a.Bind(0), port_b = b.Bind(0);
  b.Start([&](Message&& m) {
    std::lock_guard<std::mutex> lock(mu);
    got[m.head.key]++;
    cv.notify_all();
  });
  a.Start([](Message&&) {});
  a.Connect(8, "127.0.0.1", port_b);
  b.Connect(9, "127.0.0.1", port_a);  // acks go back to node 9
  const int kMessages = 300;
  for (int i = 0; i < kMessages; ++i) {
    Message m = Request(i, 0);
    m.head.sender = 9;
    m.head.key = i;
    m.body = "payload " + std::to_string(i);
    a.Send(8, m);
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30),
                            [&] { return static_cast<int>(got.size()) == kMessages; }))
        << got.size() << " of " << kMessages << " arrived";
  }
  // Wait until every ack made it back, then check nothing came twice.
  for (int i = 0; i < 300 && a.resender()->unacked() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(a.resender()->unacked(), 0u);
  EXPECT_GT(b.dropped(), 0);
  EXPECT_GT(a.resender()->resent(), 0);
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& kv : got) EXPECT_EQ(kv.second, 1) << "message " << kv.first;
  a.Stop();
  b.Stop();
}

}  // namespace
#endif  // MXNET_USE_DIST_KVSTORE
