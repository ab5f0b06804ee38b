#!/usr/bin/env python3
"""Launch a distributed job (MXNet 1.9.1's tools/launch.py flags).

Starts a scheduler on this machine plus NUM_SERVERS servers and NUM_WORKERS workers, each
running COMMAND with the DMLC_* variables of its role set, either as local processes
(--launcher local) or over ssh on the hosts of a hostfile (--launcher ssh -H hosts). The
output of each process is forwarded with its role and index as prefix; when a process
fails (or on Ctrl-C) every other process of the job is ended and the launcher exits with
the failing status. --launcher mpi runs one mpirun for the servers and one for the workers
(MPI's hostfile); --launcher sge submits one qsub array job of all servers and workers, and
--launcher yarn one YARN application through dmlc-core's dmlc-yarn.jar (`hadoop jar`), as
MXNet's dmlc tracker does; the scheduler runs here.

    python tools/launch.py -n 2 -s 2 --launcher local python train.py --kvstore dist_sync
"""
import argparse
import os
import re
import secrets
import shlex
import shutil
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
                        help='P3 distributed training (kvstore dist_p3): sets '
                             'DMLC_PS_WATER_MARK=10 (and DMLC_PS_VAN_TYPE=p3) for every node')
    # dmlc tracker's options of the sge and yarn launchers (MXNet's launch.py hands them on)
    parser.add_argument('--jobname', type=str, help='sge/yarn: the job name')
    parser.add_argument('--queue', type=str, default='default', help='sge/yarn: the queue')
    parser.add_argument('--host-ip', type=str,
                        help='sge/yarn: the address the nodes reach the scheduler (this '
                             'machine) at (default: this machine\'s outward address)')
    parser.add_argument('--vcores', type=int, default=1, help='sge: cores per task (-pe orte)')
    parser.add_argument('--sge-log-dir', type=str,
                        help='sge: where tasks write their output (default JOBNAME.log)')
    parser.add_argument('--worker-cores', type=int, default=1, help='yarn: cores per worker')
    parser.add_argument('--server-cores', type=int, default=1, help='yarn: cores per server')
    parser.add_argument('--worker-memory', type=str, default='1g',
                        help='yarn: memory per worker (e.g. 1g, 512m)')
    parser.add_argument('--server-memory', type=str, default='1g',
                        help='yarn: memory per server (e.g. 1g, 512m)')
    parser.add_argument('--hdfs-tempdir', type=str, default='/tmp',
                        help='yarn: HDFS directory for the job\'s files')
    parser.add_argument('--yarn-app-dir', type=str, default=os.environ.get('DMLC_YARN_APP_DIR'),
                        help='yarn: directory holding dmlc-core\'s dmlc-yarn.jar '
                             '(default $DMLC_YARN_APP_DIR)')
    parser.add_argument('--files', action='append', default=[],
                        help='yarn: more files to ship to the containers')
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
    if args.p3:  # MXNet's launch.py --p3 (the store type is chosen by kvstore='dist_p3')
        common.update(DMLC_PS_VAN_TYPE='p3', DMLC_PS_WATER_MARK='10')
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
    if args.launcher == 'sge':
        require_tool('qsub', 'Sun Grid Engine')
        return plan_sge(args)
    if args.launcher == 'yarn':
        return plan_yarn(args, hadoop_binary())
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


def require_tool(name, what):
    if shutil.which(name) is None:
        raise RuntimeError('--launcher needs %s (%s) on PATH; it is not found here' % (name, what))


def cluster_root(args):
    """The scheduler's address for nodes on a cluster (sge/yarn) and its env per role."""
    root_uri = args.host_ip or local_ip('10.255.255.255')
    return root_uri, node_envs(args, root_uri, free_port())


def plan_sge(args):
    """As dmlc tracker's sge.py: the scheduler here and one qsub array job of S + N tasks;
    its run script makes tasks 1..S servers and the others workers."""
    jobname = args.jobname or 'dmlc%d.%s' % (args.num_workers,
                                             os.path.basename(args.command[0]))
    logdir = os.path.abspath(args.sge_log_dir or jobname + '.log')
    if os.path.exists(logdir) and not os.path.isdir(logdir):
        raise ValueError('--sge-log-dir %s is not a directory' % logdir)
    os.makedirs(logdir, exist_ok=True)
    script = os.path.join(logdir, 'rundmlc.sh')
    s = args.num_servers
    with open(script, 'w') as f:
        f.write('#!/bin/bash\n'
                '[ -f ~/.bashrc ] && source ~/.bashrc\n'
                'export DMLC_TASK_ID=${SGE_TASK_ID}\n'
                'export DMLC_JOB_CLUSTER=sge\n'
                'if [ "${SGE_TASK_ID}" -le %d ]; then\n'
                '  export DMLC_ROLE=server DMLC_SERVER_ID=$((SGE_TASK_ID - 1))\n'
                'else\n'
                '  export DMLC_ROLE=worker DMLC_WORKER_ID=$((SGE_TASK_ID - %d))\n'
                'fi\n'
                'exec "$@"\n' % (s, s + 1))
    os.chmod(script, 0o755)
    root_uri, nodes = cluster_root(args)
    env = {k: v for k, v in nodes[1][1].items()
           if k not in ('DMLC_ROLE', 'DMLC_SERVER_ID')}  # the run script sets these
    env['PATH'] = os.environ.get('PATH', '') + ':.'
    for k, v in env.items():
        if ',' in v:
            raise ValueError('--launcher sge passes variables with qsub -v, which cannot carry '
                             'a comma: %s=%r' % (k, v))
    argv = ['qsub', '-cwd', '-t', '1-%d' % (args.num_workers + s), '-S', '/bin/bash']
    if args.queue != 'default':
        argv += ['-q', args.queue]
    argv += ['-N', jobname, '-e', logdir, '-o', logdir, '-pe', 'orte', str(args.vcores),
             '-v', ','.join('%s=%s' % kv for kv in sorted(env.items())), script]
    argv += list(args.command)
    return root_uri, [(nodes[0][0], args.command, nodes[0][1]), ('qsub', argv, {})]


def memory_mb(text):
    """'1g' / '512m' / '2048' (MB) as MB, as dmlc tracker reads --worker-memory."""
    m = re.fullmatch(r'(\d+)\s*([gGmM]?)[bB]?', text.strip())
    if not m:
        raise ValueError('memory must look like 1g or 512m, given %r' % text)
    return int(m.group(1)) * (1024 if m.group(2).lower() == 'g' else 1)


def hadoop_binary():
    home = os.environ.get('HADOOP_HOME')
    path = os.path.join(home, 'bin', 'hadoop') if home else shutil.which('hadoop')
    if not path or not os.path.exists(path):
        raise RuntimeError('--launcher yarn needs Hadoop 2 or later: set HADOOP_HOME or put '
                           'hadoop on PATH (neither is found here)')
    return path


def plan_yarn(args, hadoop):
    """As dmlc tracker's yarn.py: the scheduler here, and dmlc-core's YARN client (run with
    `hadoop jar`) starting S server and N worker containers; files of the command that
    exist here are shipped and named by their base name."""
    jar = os.path.join(args.yarn_app_dir or '', 'dmlc-yarn.jar')
    if not args.yarn_app_dir or not os.path.exists(jar):
        raise RuntimeError('--launcher yarn needs dmlc-core\'s dmlc-yarn.jar (built from '
                           'dmlc-core/tracker/yarn): pass its directory with --yarn-app-dir '
                           'or DMLC_YARN_APP_DIR (looked for %r)' % jar)
    jobname = args.jobname or 'DMLC[nworker=%d,nsever=%d]:%s' % (
        args.num_workers, args.num_servers, os.path.basename(args.command[0]))
    files = [jar] + [os.path.abspath(f) for f in args.files]
    command = []
    for word in args.command:
        if os.path.isfile(word):
            files.append(os.path.abspath(word))
            command.append('./' + os.path.basename(word))
        else:
            command.append(word)
    root_uri, nodes = cluster_root(args)
    env = {k: v for k, v in nodes[1][1].items() if k not in ('DMLC_ROLE', 'DMLC_SERVER_ID')}
    env.update(DMLC_JOB_CLUSTER='yarn', DMLC_WORKER_CORES=str(args.worker_cores),
               DMLC_SERVER_CORES=str(args.server_cores),
               DMLC_WORKER_MEMORY_MB=str(memory_mb(args.worker_memory)),
               DMLC_SERVER_MEMORY_MB=str(memory_mb(args.server_memory)),
               DMLC_JOB_ARCHIVES='')
    argv = [hadoop, 'jar', jar, 'org.apache.hadoop.yarn.dmlc.Client']
    for f in sorted(set(files)):
        argv += ['-file', f]
    argv += ['-jobname', jobname, '-tempdir', args.hdfs_tempdir, '-queue', args.queue]
    for k, v in sorted(env.items()):
        argv += ['-env', '%s=%s' % (k, v)]
    return root_uri, [(nodes[0][0], args.command, nodes[0][1]), ('yarn', argv + command, env)]


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
