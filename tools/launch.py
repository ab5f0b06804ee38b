#!/usr/bin/env python3
"""Launch a distributed job (MXNet 1.9.1's tools/launch.py flags).

Starts a scheduler on this machine plus NUM_SERVERS servers and NUM_WORKERS workers, each
running COMMAND with the DMLC_* variables of its role set, either as local processes
(--launcher local) or over ssh on the hosts of a hostfile (--launcher ssh -H hosts). The
output of each process is forwarded with its role and index as prefix; when a process
fails (or on Ctrl-C) every other process of the job is ended and the launcher exits with
the failing status. --launcher mpi runs one mpirun for the servers and one for the workers
(MPI's hostfile); sge and yarn are refused.

    python tools/launch.py -n 2 -s 2 --launcher local python train.py --kvstore dist_sync
"""
import argparse
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Launch a distributed job')
    parser.add_argument('-n', '--num-workers', required=True, type=int,
                        help='number of worker nodes to be launched')
    parser.add_argument('-s', '--num-servers', type=int,
                        help='number of server nodes to be launched (default: NUM_WORKERS)')
    parser.add_argument('-H', '--hostfile', type=str,
                        help='the hostfile of machines to run the job on, one "host" or '
                             '"host:ssh_port" a line (required by the ssh launcher)')
    parser.add_argument('--sync-dst-dir', type=str,
                        help='with the ssh launcher, copy the current directory to this '
                             'directory of every host (rsync) and run the command there')
    parser.add_argument('--launcher', type=str, default='ssh',
                        choices=['local', 'ssh', 'mpi', 'sge', 'yarn'],
                        help='the launcher to use')
    parser.add_argument('--env-server', action='append', default=[],
                        help='NAME:VALUE set in the environment of the servers')
    parser.add_argument('--env-worker', action='append', default=[],
                        help='NAME:VALUE set in the environment of the workers')
    parser.add_argument('--env', action='append', default=[],
                        help='NAME (its value here) or NAME:VALUE passed to every process '
                             '(the local launcher passes the whole environment anyway)')
    parser.add_argument('--p3', action='store_true', default=False,
                        help='MXNet\'s P3 mode (DMLC_PS_VAN_TYPE=p3); not supported here')
    parser.add_argument('command', nargs='+', help='command for launching the program')
    args, unknown = parser.parse_known_args(argv)
    args.command += unknown
    if args.num_servers is None:
        args.num_servers = args.num_workers
    if args.num_workers < 1 or args.num_servers < 1:
        parser.error('-n and -s must be at least 1')
    return args


def _pairs(items, what):
    env = {}
    for item in items:
        if ':' in item:
            name, value = item.split(':', 1)
        elif what == '--env' and item in os.environ:
            name, value = item, os.environ[item]
        else:
            raise ValueError('%s expects NAME:VALUE, given %r' % (what, item))
        env[name] = value
    return env


def free_port(host=''):
    """A TCP port nobody listens on at the moment."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def local_ip(peer):
    """The address of this machine as seen on the route to peer."""
    if peer in ('localhost', '127.0.0.1'):
        return '127.0.0.1'
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect((peer, 9))
            return s.getsockname()[0]
        except OSError:
            return socket.gethostbyname(socket.gethostname())


def read_hostfile(path):
    """[(host, ssh_port)] from a hostfile ("host" or "host:port" a line, # comments)."""
    hosts = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            host, _, port = line.partition(':')
            hosts.append((host, int(port) if port else 22))
    if not hosts:
        raise ValueError('hostfile %s lists no host' % path)
    return hosts


def node_envs(args, root_uri, root_port):
    """[(name, env)] for the scheduler, the servers and the workers: the DMLC_* variables and
    the --env* ones (without the inherited environment)."""
    common = {'DMLC_PS_ROOT_URI': root_uri, 'DMLC_PS_ROOT_PORT': str(root_port),
              'DMLC_NUM_SERVER': str(args.num_servers),
              'DMLC_NUM_WORKER': str(args.num_workers)}
    common['DMLC_PS_SECRET'] = os.environ.get('DMLC_PS_SECRET') or secrets.token_hex(16)
    common.update(_pairs(args.env, '--env'))
    nodes = [('scheduler', dict(common, DMLC_ROLE='scheduler'))]
    for i in range(args.num_servers):
        env = dict(common, DMLC_ROLE='server', DMLC_SERVER_ID=str(i))
        env.update(_pairs(args.env_server, '--env-server'))
        nodes.append(('server %d' % i, env))
    for i in range(args.num_workers):
        env = dict(common, DMLC_ROLE='worker', DMLC_WORKER_ID=str(i))
        env.update(_pairs(args.env_worker, '--env-worker'))
        nodes.append(('worker %d' % i, env))
    return nodes


def ssh_command(host, port, env, command, workdir=None):
    """The ssh command line that runs command on host with env exported."""
    exports = ' '.join('export %s=%s;' % (k, shlex.quote(v)) for k, v in sorted(env.items()))
    cd = 'cd %s;' % shlex.quote(workdir) if workdir else ''
    remote = '%s %s %s' % (exports, cd, ' '.join(shlex.quote(c) for c in command))
    return ['ssh', '-o', 'StrictHostKeyChecking=no', '-o', 'BatchMode=yes', '-p', str(port),
            host, remote]


def plan(args):
    """[(name, argv, env or None for 'inherit', extra env)] of every process of the job."""
    if args.launcher in ('sge', 'yarn'):
        raise NotImplementedError('--launcher %s is not supported by this launch.py; use local, '
                                  'ssh or mpi' % args.launcher)
    if args.p3:
        raise NotImplementedError('--p3 (dist_p3) is not supported by this build')
    if args.launcher == 'local':
        root_uri = '127.0.0.1'
        return root_uri, [(name, args.command, env)
                          for name, env in node_envs(args, root_uri, free_port(root_uri))]
    if not args.hostfile:
        raise ValueError('--launcher %s needs a hostfile (-H)' % args.launcher)
    if args.launcher == 'mpi':
        return plan_mpi(args)
    hosts = read_hostfile(args.hostfile)
    root_uri = local_ip(hosts[0][0])
    nodes = node_envs(args, root_uri, free_port())
    procs = [(nodes[0][0], args.command, nodes[0][1])]  # the scheduler runs here
    workdir = args.sync_dst_dir
    for i, (name, env) in enumerate(nodes[1:]):
        host, port = hosts[i % len(hosts)]
        env = dict(env, DMLC_NODE_HOST=host)
        procs.append((name, ssh_command(host, port, env, args.command, workdir), None))
    return root_uri, procs


def mpi_flavour():
    """'mpich' when mpirun says it is MPICH (its -env NAME VALUE), else 'openmpi' (-x)."""
    try:
        r = subprocess.run(['mpirun', '--version'], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return 'openmpi'
    text = (r.stdout + r.stderr).lower()
    return 'mpich' if ('mpich' in text or 'hydra' in text) else 'openmpi'


def mpi_command(count, hostfile, env, command, flavour):
    """mpirun starting count copies of command on the hostfile's hosts with env."""
    argv = ['mpirun', '-n', str(count), '--hostfile', hostfile]
    for k, v in sorted(env.items()):
        argv += ['-env', k, v] if flavour == 'mpich' else ['-x', '%s=%s' % (k, v)]
    return argv + list(command)


def plan_mpi(args, flavour=None):
    """As MXNet's mpi launcher: the scheduler here, one mpirun for the servers and one for
    the workers (the hostfile is mpirun's)."""
    flavour = flavour or mpi_flavour()
    with open(args.hostfile) as f:
        first = next((l.split()[0] for l in f if l.strip() and not l.startswith('#')), None)
    root_uri = local_ip(first.split(':')[0]) if first else '127.0.0.1'
    nodes = node_envs(args, root_uri, free_port())
    procs = [(nodes[0][0], args.command, nodes[0][1])]
    for role, count in (('server', args.num_servers), ('worker', args.num_workers)):
        env = dict(nodes[1 if role == 'server' else 1 + args.num_servers][1])
        env.pop('DMLC_SERVER_ID', None)
        env.pop('DMLC_WORKER_ID', None)
        procs.append(('%ss' % role, mpi_command(count, args.hostfile, env, args.command,
                                                 flavour), {}))
    return root_uri, procs


def sync_dir(hosts, dst):
    for host, port in hosts:
        subprocess.check_call(['ssh', '-o', 'StrictHostKeyChecking=no', '-p', str(port), host,
                               'mkdir -p %s' % shlex.quote(dst)])
        subprocess.check_call(['rsync', '-az', '-e', 'ssh -o StrictHostKeyChecking=no -p %d'
                               % port, os.getcwd() + '/', '%s:%s' % (host, dst)])


def _forward(name, stream, out):
    for line in iter(stream.readline, b''):
        out.write(('[%s] ' % name).encode() + line)
        out.flush()
    stream.close()


def run(procs, poll=0.2, grace=5.0):
    """Start every process; return 0 when all succeed, else the first failing status after
    ending the others."""
    children = []
    out = sys.stdout.buffer
    for name, argv, env in procs:
        full_env = dict(os.environ, **env) if env is not None else None
        p = subprocess.Popen(argv, env=full_env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        t = threading.Thread(target=_forward, args=(name, p.stdout, out), daemon=True)
        t.start()
        children.append((name, p, t))
    status = 0
    try:
        while True:
            running = [c for c in children if c[1].poll() is None]
            failed = [c for c in children if c[1].returncode not in (None, 0)]
            if failed:
                status = failed[0][1].returncode
                sys.stderr.write('launch.py: %s exited with status %d; ending the job\n'
                                 % (failed[0][0], status))
                break
            if not running:
                break
            time.sleep(poll)
    except KeyboardInterrupt:
        status = 130
    _end(children, grace)
    for _, _, t in children:
        t.join(timeout=1.0)
    return status if status >= 0 else 128 - status


def _end(children, grace):
    for _, p, _ in children:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
    deadline = time.time() + grace
    for _, p, _ in children:
        try:
            p.wait(timeout=max(0.0, deadline - time.time()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()


def _terminate(signum, frame):
    raise KeyboardInterrupt()


def main(argv=None):
    signal.signal(signal.SIGTERM, _terminate)  # end the job's processes too
    args = parse_args(argv)
    _, procs = plan(args)
    if args.launcher == 'ssh' and args.sync_dst_dir:
        sync_dir(read_hostfile(args.hostfile), args.sync_dst_dir)
    return run(procs)


if __name__ == '__main__':
    sys.exit(main())
