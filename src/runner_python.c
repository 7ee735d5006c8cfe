/* python: unittest (-m unittest -v) and pytest (-v, also under
 * pytest-xdist), runner_impl.h's operations.
 *
 * unittest is given -v: only verbose mode names each test. pytest is
 * given -p no:cacheprovider: the cache carries the first run's failures
 * into the second (--lf, --ff, --sw, which are refused); --verbosity=N
 * (N >= 1, what the user's -v/-q make it otherwise), last, so that a -q
 * in addopts cannot hide the per-test lines. -v prints the node id with
 * the outcome ("ID PASSED [ 5%]", under xdist "[gw0] [ 5%] PASSED ID"),
 * which -rA's summary does not do for skips (it prints "file:line:
 * reason").
 *
 * The channel (issues 25, 34): unittest prints a test's own output
 * unframed, between its verbose lines, on the same stream: a test that
 * writes "AttributeError" without a newline just before unittest's
 * "test_x (m.C.test_x) ... " made the audit read a test
 * m.C.test_x.AttributeErrortest_x (CPython's test_socket did), and one
 * that prints "test_x ... FAIL" or "FAIL: test_x (m.C.test_x)" turned its
 * own false green into `exercised`. So the results never come from the
 * output where sbx can add a reporter: `python -m unittest ARGS`,
 * `python -m test ARGS` and `python -m pytest ARGS` are run as `python
 * -c BOOT ARGS` (`pytest ARGS` as `PYTHON -c BOOT ARGS`, PYTHON its #!
 * line's, BOOT starting its script as the kernel's exec would), BOOT (boot_code) reading sbx's reporter (reporter_code)
 * from the result channel, descriptor RUNNER_REPORT_FD
 * (runner_report.h), where the audit put it with a key of the run's.
 * The reporter moves the descriptor above 512, close-on-exec (a
 * subprocess of a test never holds it), then runs the module as -m would
 * (runpy: __main__, sys.argv[0], the working directory on sys.path), the
 * same arguments, the same tests; what it adds is one record per test
 * start, result and stop, written by the runner's own result object
 * (unittest's TextTestRunner's, the outermost only: a test that runs a
 * suite of its own does not count; pytest's hooks), never by the
 * output. What a test in the same process can still do, and what sbx
 * detects of it, is runner_report.c's comment.
 *
 * Where no reporter can be added the output is read as before, as the
 * fallback, and the audit says so: a pytest program whose #! line is not
 * a plain python (a shell wrapper, pyenv's shim), regrtest with -j (its tests run in worker processes the reporter is not in),
 * a command given with --runner that is not one of these forms. pytest's
 * lines there come with the tests' output captured (shown after the
 * results, where the parser does not read) unless -s.
 *
 * pytest's hello says serial once its options show no xdist (or a plugin
 * like it): each start is then recorded before the test's setup, and the
 * setup and teardown of a fixture broader than a function's are
 * bracketed as the suite's own time (runner_report.h's suite records).
 * Under xdist the controller hears of a test after a worker ran it, so
 * its starts place nothing; the reporter's worker half (worker_code),
 * run in each worker by execnet before xdist's own code through the
 * pytest_configure_node hook, stamps each test's run and the suite's
 * spans there with the worker's CLOCK_MONOTONIC and hangs them on the
 * teardown's report, which xdist serializes whole to the controller: the
 * controller relays them as ran and span records. A worker it could not
 * be run in sends none, and nothing is placed by them.
 *
 * CPython's own suite (python -m test, regrtest) is given -v: it prints
 * unittest's verbose lines, read as unittest's where the output is read. */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sbx's result reporter, sent as the greeting (runner_report_greeting):
 * the records of runner_report.h, from unittest's result object or
 * pytest's hooks. Its last line, added with the key, calls it. */
static const char reporter_code[] =
    "def _sbx(key, main, fd, script=None):\n"
    "    # sbx audit's result reporter (runner_python.c): one record per test\n"
    "    # start, result and stop on the result channel, never on the output.\n"
    "    import os, re, sys, time\n"
    "    try:\n"
    "        import fcntl\n"
    "        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 512)\n"
    "        os.close(fd)\n"
    "        fd = high\n"
    "    except (ImportError, OSError):\n"
    "        os.set_inheritable(fd, False)\n"
    "    state = {'seq': 0, 'live': True, 'hello': False, 'suite': 0}\n"
    "    ctl = re.compile(rb'[\\x00-\\x1f\\x7f]')\n"
    "\n"
    "    def esc(s):\n"
    "        b = str(s).encode('utf-8', 'surrogatepass').replace(b'\\\\', b'\\\\\\\\')\n"
    "        return ctl.sub(lambda m: b'\\\\x%02x' % m.group()[0], b)\n"
    "\n"
    "    def emit(*words):\n"
    "        if not state['live']:\n"
    "            return\n"
    "        # the hello comes first: pytest's says whether xdist runs the\n"
    "        # tests once its options are read; anything before that (a\n"
    "        # usage error's end) goes out after a hello that claims nothing\n"
    "        if words[0] == 'hello':\n"
    "            if state['hello']:\n"
    "                return\n"
    "            state['hello'] = True\n"
    "        elif not state['hello']:\n"
    "            emit('hello', main, 'parallel')\n"
    "        line = b' '.join([key, b'%d' % state['seq']] + [w if isinstance(w, bytes) else w.encode() for w in words]) + b'\\n'\n"
    "        state['seq'] += 1\n"
    "        try:\n"
    "            while line:\n"
    "                line = line[os.write(fd, line):]\n"
    "        except OSError:\n"
    "            state['live'] = False\n"
    "\n"
    "    started = {}\n"
    "\n"
    "    def start(name):\n"
    "        started[name] = time.monotonic()\n"
    "        emit('start', esc(name))\n"
    "        # the threads already alive (a server an earlier test left, a\n"
    "        # pool): a call of theirs may not be this test's\n"
    "        import threading\n"
    "        me = threading.get_native_id()\n"
    "        others = sorted({t.native_id for t in threading.enumerate() if t.native_id and t.native_id != me})\n"
    "        if others:\n"
    "            emit('threads', ' '.join(str(t) for t in others[:1024]))\n"
    "\n"
    "    def stop(name):\n"
    "        t = started.pop(name, None)\n"
    "        us = int((time.monotonic() - t) * 1e6) if t is not None else 0\n"
    "        emit('stop', str(us), esc(name))\n"
    "\n"
    "    def unittest_hooks():\n"
    "        import unittest\n"
    "        import unittest.runner\n"
    "        import unittest.suite\n"
    "        holder = re.compile(r'^(\\w+) \\((.+)\\)$')\n"
    "\n"
    "        def name_of(test):\n"
    "            if isinstance(test, unittest.suite._ErrorHolder):\n"
    "                m = holder.match(test.description)\n"
    "                return m.group(2) + '.' + m.group(1) if m else test.description\n"
    "            return test.id()\n"
    "\n"
    "        def instrument(result):\n"
    "            def hook(method, before):\n"
    "                orig = getattr(result, method, None)\n"
    "                if orig is None:\n"
    "                    return\n"
    "                def wrapped(*args, **kwargs):\n"
    "                    before(*args)\n"
    "                    return orig(*args, **kwargs)\n"
    "                setattr(result, method, wrapped)\n"
    "\n"
    "            def outcome(status):\n"
    "                return lambda test, *rest: emit('result', status, esc(name_of(test)))\n"
    "\n"
    "            def sub(test, subtest, err=None):\n"
    "                if err is not None:\n"
    "                    failed = issubclass(err[0], test.failureException)\n"
    "                    emit('result', 'failed' if failed else 'errored', esc(name_of(test)))\n"
    "\n"
    "            def run_ends():\n"
    "                emit('count', str(result.testsRun),\n"
    "                     str(len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)),\n"
    "                     str(len(result.skipped) + len(result.expectedFailures)))\n"
    "\n"
    "            hook('startTest', lambda test: start(name_of(test)))\n"
    "            hook('stopTest', lambda test: stop(name_of(test)))\n"
    "            hook('addSuccess', outcome('passed'))\n"
    "            hook('addFailure', outcome('failed'))\n"
    "            hook('addError', outcome('errored'))\n"
    "            hook('addSkip', outcome('skipped'))\n"
    "            hook('addExpectedFailure', outcome('skipped'))\n"
    "            hook('addUnexpectedSuccess', outcome('failed'))\n"
    "            hook('addSubTest', sub)\n"
    "            hook('stopTestRun', run_ends)\n"
    "\n"
    "        # only the runner's own result: a test that runs a suite of its\n"
    "        # own (CPython's test_unittest) does it inside, one level down\n"
    "        runner = unittest.runner.TextTestRunner\n"
    "        orig_run, orig_make = runner.run, runner._makeResult\n"
    "        depth = [0]\n"
    "\n"
    "        def run(self, test):\n"
    "            depth[0] += 1\n"
    "            try:\n"
    "                return orig_run(self, test)\n"
    "            finally:\n"
    "                depth[0] -= 1\n"
    "\n"
    "        def make(self):\n"
    "            result = orig_make(self)\n"
    "            if depth[0] == 1:\n"
    "                instrument(result)\n"
    "            return result\n"
    "        runner.run, runner._makeResult = run, make\n"
    "\n"
    "    def suite(edge):\n"
    "        # the suite's own time inside a test's run, not nested\n"
    "        state['suite'] += 1 if edge == 'begin' else -1\n"
    "        if state['suite'] == (1 if edge == 'begin' else 0):\n"
    "            emit('suite', edge)\n"
    "\n"
    "    def suite_around(broad):\n"
    "        # a hookwrapper's body: the hook's own run as the suite's time\n"
    "        if broad:\n"
    "            suite('begin')\n"
    "        yield\n"
    "        if broad:\n"
    "            suite('end')\n"
    "\n"
    "    worker_code = (\n"
    "        'import os, threading, time\\n'\n"
    "        'import _pytest.config\\n'\n"
    "        'import pytest\\n'\n"
    "        '\\n'\n"
    "        \"state = {'t0': None, 'tids': (), 'spans': []}\\n\"\n"
    "        '\\n'\n"
    "        '\\n'\n"
    "        'def broad_teardown(item, nextitem):\\n'\n"
    "        '    after = nextitem.listchain() if nextitem is not None else []\\n'\n"
    "        '    return any(node not in after for node in item.listchain()[:-1])\\n'\n"
    "        '\\n'\n"
    "        '\\n'\n"
    "        'class SbxWorkerRuns:\\n'\n"
    "        \"    # sbx audit's reporter in a pytest-xdist worker (runner_python.c):\\n\"\n"
    "        \"    # each test's run by this process's clock, sent with its teardown's\\n\"\n"
    "        '    # report, which xdist carries to the controller whole\\n'\n"
    "        '    @pytest.hookimpl(tryfirst=True)\\n'\n"
    "        '    def pytest_runtest_logstart(self, nodeid, location):\\n'\n"
    "        '        me = threading.get_native_id()\\n'\n"
    "        '        alive = {t.native_id for t in threading.enumerate() if t.native_id and t.native_id != me}\\n'\n"
    "        \"        state['tids'] = sorted(alive)[:1024]\\n\"\n"
    "        \"        state['spans'] = []\\n\"\n"
    "        \"        state['t0'] = time.monotonic_ns()\\n\"\n"
    "        '\\n'\n"
    "        '    @pytest.hookimpl(hookwrapper=True)\\n'\n"
    "        '    def pytest_fixture_setup(self, fixturedef, request):\\n'\n"
    "        '        t = time.monotonic_ns()\\n'\n"
    "        '        yield\\n'\n"
    "        \"        if fixturedef.scope != 'function' and state['t0'] is not None:\\n\"\n"
    "        \"            state['spans'].append((t, time.monotonic_ns()))\\n\"\n"
    "        '\\n'\n"
    "        '    @pytest.hookimpl(hookwrapper=True)\\n'\n"
    "        '    def pytest_runtest_teardown(self, item, nextitem):\\n'\n"
    "        '        t = time.monotonic_ns()\\n'\n"
    "        '        yield\\n'\n"
    "        \"        if state['t0'] is not None and broad_teardown(item, nextitem):\\n\"\n"
    "        \"            state['spans'].append((t, time.monotonic_ns()))\\n\"\n"
    "        '\\n'\n"
    "        '    @pytest.hookimpl(hookwrapper=True)\\n'\n"
    "        '    def pytest_runtest_makereport(self, item, call):\\n'\n"
    "        '        outcome = yield\\n'\n"
    "        \"        if call.when == 'teardown' and state['t0'] is not None:\\n\"\n"
    "        '            rep = outcome.get_result()\\n'\n"
    "        \"            rep._sbx_run = [os.getpid(), state['t0'], time.monotonic_ns(), list(state['tids']),\\n\"\n"
    "        \"                            [list(s) for s in state['spans'][:64]]]\\n\"\n"
    "        \"            state['t0'] = None\\n\"\n"
    "        '\\n'\n"
    "        '\\n'\n"
    "        'orig = _pytest.config._prepareconfig\\n'\n"
    "        '\\n'\n"
    "        '\\n'\n"
    "        'def prepareconfig(args=None, plugins=None):\\n'\n"
    "        '    # the worker\\'s own session only, once: a test that runs pytest\\n'\n"
    "        '    # in its process (pytester.inline_run) gets none\\n'\n"
    "        '    _pytest.config._prepareconfig = orig\\n'\n"
    "        '    return orig(args, list(plugins or ()) + [SbxWorkerRuns()])\\n'\n"
    "        '\\n'\n"
    "        '\\n'\n"
    "        '_pytest.config._prepareconfig = prepareconfig\\n'\n"
    "        \"channel.send('ready')\\n\"\n"
    "    )\n"
    "\n"
    "    def relay(run, nodeid):\n"
    "        # a worker's run of one test, by its own clock (runner_report.h)\n"
    "        try:\n"
    "            pid, t0, t1, tids, spans = run\n"
    "            nums = [str(int(pid)), str(int(t0)), str(int(t1))]\n"
    "            tids = ','.join(str(int(t)) for t in tids[:1024]) or '-'\n"
    "            spans = [(str(int(a)), str(int(b))) for a, b in spans[:64]]\n"
    "        except (TypeError, ValueError):\n"
    "            return\n"
    "        emit('ran', *nums, tids, esc(nodeid))\n"
    "        for a, b in spans:\n"
    "            emit('span', nums[0], a, b)\n"
    "\n"
    "    def pytest_hooks():\n"
    "        import _pytest.config\n"
    "        import pytest\n"
    "\n"
    "        class Reporter:\n"
    "            @pytest.hookimpl(optionalhook=True)\n"
    "            def pytest_configure_node(self, node):\n"
    "                # xdist, before each worker starts: the reporter's\n"
    "                # worker half, run there first (a worker without it\n"
    "                # sends no runs, and nothing is placed by them)\n"
    "                try:\n"
    "                    ch = node.gateway.remote_exec(worker_code)\n"
    "                    ch.receive(60)\n"
    "                except Exception:\n"
    "                    pass\n"
    "\n"
    "            @pytest.hookimpl(trylast=True)\n"
    "            def pytest_configure(self, config):\n"
    "                # serial unless xdist (or a plugin like it) runs tests in\n"
    "                # workers: their starts reach this process after the fact\n"
    "                o = config.option\n"
    "                workers = bool(getattr(o, 'numprocesses', None)) or bool(getattr(o, 'tx', None)) or \\\n"
    "                    getattr(o, 'dist', 'no') not in ('no', None)\n"
    "                pm = config.pluginmanager\n"
    "                others = any(pm.has_plugin(n) for n in ('parallel', 'pytest_parallel', 'run-parallel', 'pytest_run_parallel'))\n"
    "                state['parallel'] = bool(workers or others)\n"
    "                emit('hello', 'pytest', 'parallel' if workers or others else 'serial')\n"
    "                if workers:\n"
    "                    # xdist's controller runs no test: its calls are the suite's\n"
    "                    emit('controller', str(os.getpid()))\n"
    "\n"
    "            # a fixture broader than the test's own is the suite's: set up\n"
    "            # in the setup of the first test that needs it, torn down in\n"
    "            # the teardown of the last\n"
    "            @pytest.hookimpl(hookwrapper=True)\n"
    "            def pytest_fixture_setup(self, fixturedef, request):\n"
    "                yield from suite_around(fixturedef.scope != 'function')\n"
    "\n"
    "            @pytest.hookimpl(hookwrapper=True)\n"
    "            def pytest_runtest_teardown(self, item, nextitem):\n"
    "                # the nodes the next test does not share are torn down\n"
    "                # here (their fixtures, module and class ones), with the\n"
    "                # test's own: the whole teardown is then the suite's\n"
    "                after = nextitem.listchain() if nextitem is not None else []\n"
    "                yield from suite_around(any(node not in after for node in item.listchain()[:-1]))\n"
    "\n"
    "            def pytest_runtest_logstart(self, nodeid, location):\n"
    "                start(nodeid)\n"
    "\n"
    "            def pytest_runtest_logfinish(self, nodeid, location):\n"
    "                stop(nodeid)\n"
    "\n"
    "            def pytest_runtest_logreport(self, report):\n"
    "                run = getattr(report, '_sbx_run', None)\n"
    "                if run is not None and state.get('parallel'):\n"
    "                    relay(run, report.nodeid)\n"
    "                xfail = hasattr(report, 'wasxfail')\n"
    "                if report.when == 'call':\n"
    "                    status = {'passed': 'passed', 'skipped': 'skipped'}.get(report.outcome, 'failed')\n"
    "                    if xfail and report.outcome == 'skipped':\n"
    "                        status = 'skipped'\n"
    "                elif report.outcome == 'skipped':\n"
    "                    status = 'skipped'\n"
    "                elif report.outcome == 'failed':\n"
    "                    status = 'errored'\n"
    "                else:\n"
    "                    return\n"
    "                emit('result', status, esc(report.nodeid))\n"
    "\n"
    "            def pytest_collectreport(self, report):\n"
    "                if report.failed:\n"
    "                    emit('result', 'errored', esc(report.nodeid or '(collection)'))\n"
    "\n"
    "            def pytest_sessionfinish(self, session):\n"
    "                tr = session.config.pluginmanager.get_plugin('terminalreporter')\n"
    "                if tr is None:\n"
    "                    return\n"
    "                n = {k: len(tr.stats.get(k, ())) for k in ('passed', 'failed', 'error', 'skipped', 'xfailed', 'xpassed')}\n"
    "                emit('count', str(sum(n.values())), str(n['failed'] + n['error']), str(n['skipped'] + n['xfailed']))\n"
    "\n"
    "        orig_main = _pytest.config.main\n"
    "\n"
    "        def main(args=None, plugins=None):\n"
    "            return orig_main(args, list(plugins or ()) + [Reporter()])\n"
    "        _pytest.config.main = main\n"
    "\n"
    "    if main != 'pytest':\n"
    "        emit('hello', main, 'serial')\n"
    "    if main == 'pytest':\n"
    "        pytest_hooks()\n"
    "    else:\n"
    "        unittest_hooks()\n"
    "    # as -m does: the module as __main__, sys.argv[0] its file, the\n"
    "    # working directory first on sys.path (-c put '' there)\n"
    "    import runpy\n"
    "    if script:\n"
    "        # pytest run as a program: what its script's exec would give\n"
    "        sys.argv[0] = script\n"
    "        if sys.path and sys.path[0] == '':\n"
    "            sys.path[0] = os.path.dirname(script)\n"
    "        try:\n"
    "            import pytest\n"
    "            sys.exit(pytest.console_main())\n"
    "        finally:\n"
    "            if not started:\n"
    "                emit('end')\n"
    "    if sys.path and sys.path[0] == '':\n"
    "        sys.path[0] = os.getcwd()\n"
    "    try:\n"
    "        runpy.run_module(main, run_name='__main__', alter_sys=True)\n"
    "    finally:\n"
    "        if not started:\n"
    "            emit('end')\n";

/* What -c runs: the reporter, read from the channel, with the module -m
 * named (a second application of runner_command() knows it by this). */
#define BOOT_PREFIX "import os;exec(compile(os.read(" SBX_STR(RUNNER_REPORT_FD) ",1<<20),'<sbx result reporter>','exec'),"
#define SBX_STR(x) SBX_STR_(x)
#define SBX_STR_(x) #x
#define BOOT(module) BOOT_PREFIX "{'__name__':'__sbx__','MAIN':'" module "','FD':" SBX_STR(RUNNER_REPORT_FD) "})"
/* pytest run as a program: its script's own start, in its interpreter */
#define BOOT_SCRIPT BOOT_PREFIX "{'__name__':'__sbx__','MAIN':'pytest','FD':" SBX_STR(RUNNER_REPORT_FD) ",'SCRIPT':'%s'})"

static char *python_greeting(const char *key, size_t *len)
{
    char *g = xasprintf("%s_sbx(b'%s', MAIN, FD, globals().get('SCRIPT'))\n", reporter_code, key);
    *len = strlen(g);
    return g;
}

static bool python_carries_reporter(char *const argv[])
{
    for (size_t i = 0; argv[i]; i++)
        if (starts(argv[i], BOOT_PREFIX))
            return true;
    return false;
}

struct python_state {
    char *doc_id;        /* unittest: a description line awaiting its docstring line */
    uint64_t ran;        /* unittest: "Ran N tests", until its "OK"/"FAILED" */
    bool ran_seen;
    bool over;           /* unittest: after "Ran N tests"; regrtest: until its next module */
    struct strv reports; /* unittest: its closing report, "<status digit><20-digit position><id>" */
    bool summary;        /* pytest: after its "short test summary info" */
    bool failures;       /* pytest: in its FAILURES/ERRORS sections */
};

/* python, python3, python3.11 */
static bool is_python(const char *name)
{
    if (strncmp(name, "python", 6))
        return false;
    for (const char *c = name + 6; *c; c++)
        if (!(*c >= '0' && *c <= '9') && *c != '.')
            return false;
    return true;
}

/* The index of the -m MODULE token of a python command line (the token
 * that names the module: "unittest" of "-m unittest", or "-munittest"),
 * *module set to the module name; -1 when python runs a script or -c. The
 * interpreter's options that take a value (-X opt, -W arg) are skipped. */
static int python_module(char *const argv[], const char **module)
{
    for (int i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1])
            return -1;
        if (!strcmp(a, "--"))
            return -1;
        if (a[1] == '-')
            continue;  /* --help, --version */
        for (const char *c = a + 1; *c; c++) {
            if (*c == 'm') {
                if (c[1]) {
                    *module = c + 1;
                    return i;
                }
                if (!argv[i + 1])
                    return -1;
                *module = argv[i + 1];
                return i + 1;
            }
            if (*c == 'c')
                return -1;
            if (*c == 'X' || *c == 'W') {
                if (!c[1])
                    i++;
                if (!argv[i])
                    return -1;
                break;
            }
        }
    }
    return -1;
}

/* The index of the module token of python -m MODULE when MODULE is one
 * of `modules`, 0 for one of `programs`; -1 otherwise, why filled when
 * python runs another module or a script. */
static int python_anchor(char *const argv[], char *why, size_t why_size, const char *const programs[],
                         const char *const modules[])
{
    const char *prog = base_name(argv[0]);
    for (size_t i = 0; programs[i]; i++)
        if (!strcmp(prog, programs[i]))
            return 0;
    if (!is_python(prog))
        return -1;
    const char *module = NULL;
    int i = python_module(argv, &module);
    if (i < 0) {
        snprintf(why, why_size, "%.64s runs a script, not -m unittest or -m pytest", prog);
        return -1;
    }
    for (size_t m = 0; modules[m]; m++)
        if (!strcmp(module, modules[m]))
            return i;
    if (strcmp(module, "unittest") && strcmp(module, "pytest") && strcmp(module, "py.test"))
        snprintf(why, why_size, "python -m %.64s is neither unittest nor pytest", module);
    return -1;
}

/* python [options] -m MODULE ARGS (what command() made) becomes python
 * [options] -c BOOT ARGS: the interpreter's options stay ("-bm MODULE"
 * keeps its -b), the module's arguments follow as they were. False when
 * there is no -m MODULE (pytest run as a program, a --runner wrapper). */
static bool swap_m_for_boot(struct strv *out, const char *boot, const char *what, struct strv *notes)
{
    const char *module = NULL;
    /* (pytest -m MARK is no -m MODULE) */
    int i = out->v && is_python(base_name(out->v[0])) ? python_module(out->v, &module) : -1;
    if (i < 0)
        return false;
    const char *tok = out->v[i];
    bool joined = module != tok;
    int flag = joined ? i : i - 1;
    const char *ft = out->v[flag];
    size_t before_m = joined ? (size_t)(module - ft) - 1 : strlen(ft) - 1;
    struct strv nv = { 0 };
    push_range(&nv, out->v, 0, flag);
    if (before_m > 1)
        strv_push(&nv, xstrndup(ft, before_m));
    push(&nv, "-c");
    push(&nv, boot);
    push_range(&nv, out->v, i + 1, (int)out->n);
    strv_push(notes, xasprintf("added sbx's result reporter: -m %s runs as python -c (the same module, "
                               "arguments and tests, as -m runs them) with a reporter that writes each "
                               "test's start and result from %s to descriptor %d, which the suite's "
                               "output cannot reach; the output is not read for results",
                               module, what, RUNNER_REPORT_FD));
    strv_free(out);
    *out = nv;
    return true;
}

static bool unittest_reporter(struct strv *out, struct strv *notes)
{
    return swap_m_for_boot(out, BOOT("unittest"), "unittest's result object", notes);
}

/* pytest run as a program: its #! line's python runs the same start
 * (sys.argv[0] and sys.path[0] the script's, as the kernel's exec of it
 * would give) with sbx's reporter, then pytest's console_main() as the
 * script does. */
static bool pytest_reporter(struct strv *out, struct strv *notes)
{
    if (swap_m_for_boot(out, BOOT("pytest"), "pytest's hooks", notes))
        return true;
    char why[256], *script = NULL;
    char *python = out->n ? runner_program_interpreter(out->v[0], "python", &script, why, sizeof why) : NULL;
    if (!python) {
        strv_push(notes, xasprintf("sbx adds no result reporter to pytest run as a program here (%s): the "
                                   "results are read from pytest's lines (the tests' output is captured "
                                   "unless -s); python -m pytest gets one", why));
        return false;
    }
    struct strv nv = { 0 };
    strv_push(&nv, python);
    push(&nv, "-c");
    strv_push(&nv, xasprintf(BOOT_SCRIPT, script));
    push_range(&nv, out->v, 1, (int)out->n);
    strv_push(notes, xasprintf("added sbx's result reporter: pytest runs as %s -c (the interpreter of its "
                               "#! line, starting %s as the script does, with the same arguments and "
                               "tests) with a reporter that writes each test's start and result from "
                               "pytest's hooks to descriptor %d, which the suite's output cannot reach; the "
                               "output is not read for results", python, script, RUNNER_REPORT_FD));
    free(script);
    strv_free(out);
    *out = nv;
    return true;
}

static bool regrtest_reporter(struct strv *out, struct strv *notes)
{
    for (size_t i = 0; i < out->n; i++) {
        const char *a = out->v[i];
        if (!strcmp(a, "-j") || !strcmp(a, "--multiprocess") || starts(a, "--multiprocess=") ||
            (starts(a, "-j") && a[2] >= '0' && a[2] <= '9')) {
            note_add(notes, "python -m test -j runs the tests in worker processes, where sbx's result "
                            "reporter is not: the results are read from the output");
            return false;
        }
    }
    return swap_m_for_boot(out, BOOT("test"), "unittest's result object", notes);
}

static int unittest_anchor(char *const argv[], char *why, size_t why_size)
{
    static const char *const programs[] = { NULL };
    static const char *const modules[] = { "unittest", NULL };
    return python_anchor(argv, why, why_size, programs, modules);
}

static int pytest_anchor(char *const argv[], char *why, size_t why_size)
{
    static const char *const programs[] = { "pytest", "py.test", "pytest-3", NULL };
    static const char *const modules[] = { "pytest", "py.test", NULL };
    return python_anchor(argv, why, why_size, programs, modules);
}

/* CPython's own suite: python -m test (Lib/test/regrtest). */
static int regrtest_anchor(char *const argv[], char *why, size_t why_size)
{
    static const char *const programs[] = { NULL };
    static const char *const modules[] = { "test", "test.regrtest", NULL };
    char ignored[256];
    (void)why;
    (void)why_size;
    return python_anchor(argv, ignored, sizeof ignored, programs, modules);
}

/* regrtest's options that take a value */
static const char *const regrtest_value_options[] = {
    "-m", "--match", "-i", "--ignore", "-u", "--use", "-j", "--multiprocess", "--timeout", "--randseed",
    "-M", "--memlimit", "-R", "--huntrleaks", "--matchfile", "--ignorefile", "--testdir", "-w", "-S",
    "--start", "-W", "-F", "--forever", "--junit-xml", "--tempdir", "--cleanup", NULL,
};

/* -v: regrtest prints each test's unittest line ("name (id) ... ok") only
 * when verbose; without it, one line per module. */
static bool cmd_regrtest(char *const argv[], int m, struct strv *out, struct strv *notes, char *err,
                         size_t err_size)
{
    (void)err;
    (void)err_size;
    int n = (int)argv_len(argv);
    bool verbose = false;
    for (int i = m + 1; i < n; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-vv"))
            verbose = true;
        else if (takes_value(regrtest_value_options, argv[i]))
            i++;
    }
    push_range(out, argv, 0, m + 1);
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: CPython's regrtest names each test only when verbose");
    }
    push_range(out, argv, m + 1, n);
    return true;
}

/* The test modules of the ids ("test.test_socket.C.test_x" is test_socket,
 * "test_x.C.test_y" under --testdir test_x),
 * each once, then -m ID per test (regrtest matches a full id exactly, and
 * runs a test when any -m matches); none: -m with an id no test has. The
 * user's own selections (test names, -m, -i, --matchfile) are replaced. */
static bool regrtest_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                            const struct runner_test *t, struct strv *out)
{
    push_range(out, argv, 0, a + 1);
    for (int i = a + 1; argv[i]; i++) {
        const char *o = argv[i];
        bool selection = !strcmp(o, "-m") || !strcmp(o, "--match") || !strcmp(o, "-i") ||
                         !strcmp(o, "--ignore") || !strcmp(o, "--matchfile") || !strcmp(o, "--ignorefile");
        if (o[0] != '-')
            continue;
        if (!selection)
            push(out, o);
        if (takes_value(regrtest_value_options, o) && argv[i + 1]) {
            if (!selection)
                push(out, argv[i + 1]);
            i++;
        }
    }
    size_t from = out->n;
    const struct runner_test *const *list = count ? tests : &t;
    for (size_t k = 0; k < (count ? count : 1); k++) {
        /* the stdlib's test.test_x...; under --testdir DIR, test_x... */
        const char *id = list[k]->id, *name = starts(id, "test.") ? id + 5 : id;
        const char *dot = strchr(name, '.');
        if (dot == name || !*name)
            return false;
        char *module = dot ? xstrndup(name, (size_t)(dot - name)) : xstrdup(name);
        bool seen = false;
        for (size_t j = from; j < out->n && !seen; j++)
            seen = !strcmp(out->v[j], module);
        if (!seen)
            strv_push(out, module);
        else
            free(module);
    }
    for (size_t k = 0; k < count; k++) {
        push(out, "-m");
        push(out, tests[k]->id);
    }
    if (!count) {
        push(out, "-m");
        push(out, "test.sbx.selects.no.test");
    }
    return true;
}

static bool regrtest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                           struct strv *out)
{
    return regrtest_select(argv, a, tests, count, tests[0], out);
}

static bool regrtest_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    return regrtest_select(argv, a, NULL, 0, t, out);
}

static bool cmd_unittest(char *const argv[], int m, struct strv *out, struct strv *notes, char *err,
                         size_t err_size)
{
    (void)err;
    (void)err_size;
    int d = end_of_options(argv, m + 1);
    bool verbose = false;
    for (int i = m + 1; i < d; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
            verbose = true;
        else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
            verbose = false;
    }
    /* argparse: the last of -v/-q wins, so -v goes after the user's flags
     * (but before "--"); `discover` must stay argv[1] of unittest. */
    /* -f/--failfast stops at the first failure: the tests after it would
     * have no result under the stricter profile; removed */
    bool failfast = false;
    for (int i = 0; i < d; i++) {
        if (i > m && (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--failfast"))) {
            failfast = true;
            continue;
        }
        push(out, argv[i]);
    }
    if (failfast)
        note_add(notes, "removed -f/--failfast: unittest would stop at a failure, leaving the tests after "
                        "it without a result");
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: unittest names each test only in verbose mode");
    }
    push_range(out, argv, d, (int)argv_len(argv));
    return true;
}

static bool cmd_pytest(char *const argv[], int a0, struct strv *out, struct strv *notes, char *err,
                       size_t err_size)
{
    static const char *const cache_flags[] = {
        "--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw",
        "--stepwise", "--sw-skip", "--stepwise-skip", "--cache-show", "--lfnf",
    };
    int d = end_of_options(argv, a0 + 1);
    long verbosity = 0;
    bool no_cache = false, stops = false;
    for (int i = a0 + 1; i < d; i++) {
        const char *a = argv[i];
        /* -x, --exitfirst, --maxfail=N: pytest stops at the first
         * failures, and a test after them has no result under the
         * stricter profile (cargo's --no-fail-fast, for pytest) */
        stops |= !strcmp(a, "--exitfirst") || starts(a, "--maxfail") ||
                 (a[0] == '-' && a[1] != '-' && strchr(a, 'x') && strspn(a + 1, "vqxsl") == strlen(a + 1));
        for (size_t c = 0; c < sizeof cache_flags / sizeof cache_flags[0]; c++) {
            size_t n = strlen(cache_flags[c]);
            if (!strncmp(a, cache_flags[c], n) && (a[n] == '\0' || a[n] == '='))
                return refuse(err, err_size,
                              "pytest %s selects tests from the cache of a previous run, so the "
                              "two runs would not run the same tests: drop it", a);
        }
        if (a[0] == '-' && a[1] && strspn(a + 1, "vq") == strlen(a + 1)) {
            for (const char *c = a + 1; *c; c++)
                verbosity += *c == 'v' ? 1 : -1;
        } else if (!strcmp(a, "--verbose")) {
            verbosity++;
        } else if (!strcmp(a, "--quiet")) {
            verbosity--;
        } else if (!strncmp(a, "--verbosity=", 12)) {
            uint64_t v;
            verbosity = parse_u64(a + 12, &v) && v < 100 ? (long)v : 0;
        } else if ((!strcmp(a, "-p") && argv[i + 1] && !strcmp(argv[i + 1], "no:cacheprovider")) ||
                   !strcmp(a, "-pno:cacheprovider")) {
            no_cache = true;
        }
    }
    push_range(out, argv, 0, d);
    if (!no_cache) {
        push(out, "-p");
        push(out, "no:cacheprovider");
    }
    if (verbosity < 1)
        verbosity = 1;
    if (verbosity > 99)
        verbosity = 99;
    strv_push(out, xasprintf("--verbosity=%ld", verbosity));
    if (stops) {
        push(out, "--maxfail=0");
        note_add(notes, "added --maxfail=0: the command's -x/--maxfail stops pytest at a failure, which "
                        "would leave the tests after it without a result");
    }
    note_add(notes, no_cache ? "added --verbosity: pytest names each test only when verbose"
                             : "added -p no:cacheprovider: pytest's cache carries one run's "
                               "failures into the next; --verbosity: pytest names each test "
                               "only when verbose");
    push_range(out, argv, d, (int)argv_len(argv));
    return true;
}

/* "name (module.Class.name)" (python >= 3.11) or "name (module.Class)":
 * the test's id, *rest set after the closing parenthesis (a subtest's
 * "(i=1)" or " [msg]"). Class and module fixtures are named by what they
 * set up: "setUpClass (module.Class)" is module.Class.setUpClass. */
static char *unittest_desc(const char *s, const char **rest)
{
    const char *sp = strchr(s, ' ');
    if (!sp || sp == s || sp[1] != '(')
        return NULL;
    const char *inside = sp + 2, *close = strchr(inside, ')');
    if (!close || close == inside)
        return NULL;
    /* what unittest prints inside is a dotted Python name (module.Class
     * or module.Class.method): anything else ("FAILED (failures=1)", the
     * run's last line) is not a test */
    for (const char *c = inside; c < close; c++)
        if (!(*c == '.' || *c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z') || (unsigned char)*c >= 0x80))
            return NULL;
    size_t name_len = (size_t)(sp - s), in_len = (size_t)(close - inside);
    *rest = close + 1;
    if (in_len > name_len + 1 && inside[in_len - name_len - 1] == '.' &&
        !memcmp(inside + in_len - name_len, s, name_len))
        return xstrndup(inside, in_len);
    return xasprintf("%.*s.%.*s", (int)in_len, inside, (int)name_len, s);
}

static bool unittest_status(const char *s, enum test_status *out)
{
    if (!strcmp(s, "ok"))
        *out = TEST_PASSED;
    else if (!strcmp(s, "FAIL") || !strcmp(s, "unexpected success"))
        *out = TEST_FAILED;
    else if (!strcmp(s, "ERROR"))
        *out = TEST_ERRORED;
    else if (!strcmp(s, "expected failure") || !strcmp(s, "skipped") || starts(s, "skipped "))
        *out = TEST_SKIPPED;
    else
        return false;
    return true;
}

/* N of "key=N" in unittest's closing line, 0 without. */
static uint64_t unittest_kv(const char *s, const char *key)
{
    const char *at = strstr(s, key);
    uint64_t n = 0;
    if (at)
        for (at += strlen(key); *at >= '0' && *at <= '9'; at++)
            n = n < UINT64_MAX / 16 ? n * 10 + (uint64_t)(*at - '0') : n;
    return n;
}

static void unittest_line(struct runner_parser *p, char *line)
{
    struct python_state *ps = p->state;
    char *s = skip_spaces(line);
    const char *rest = "";
    enum test_status st;
    char *doc = ps->doc_id;
    ps->doc_id = NULL;
    /* the report after the run: "FAIL: name (id)", also for what never
     * printed a line of its own (setUpClass) */
    static const struct { const char *prefix; enum test_status st; } report[] = {
        { "FAIL: ", TEST_FAILED }, { "ERROR: ", TEST_ERRORED }, { "UNEXPECTED SUCCESS: ", TEST_FAILED },
    };
    /* the runner's own count: "Ran 5 tests in 0.01s", then "OK
     * (skipped=1)" or "FAILED (failures=1, errors=1, skipped=1)" */
    uint64_t ran;
    if (s == line && starts(s, "Ran ") && (ran = runner_count_of(s, "tests", NULL) + runner_count_of(s, "test", NULL),
                                          strstr(s, " in "))) {
        ps->ran = ran;
        ps->ran_seen = true;
        ps->over = true;
    } else if (s == line && ps->ran_seen && (!strcmp(s, "OK") || starts(s, "OK (") || starts(s, "FAILED ("))) {
        uint64_t failed = unittest_kv(s, "failures=") + unittest_kv(s, "errors=") +
                          unittest_kv(s, "unexpected successes=");
        uint64_t skipped = unittest_kv(s, "skipped=") + unittest_kv(s, "expected failures=");
        runner_count(p, ps->ran > failed + skipped ? ps->ran - failed - skipped : 0, failed, skipped, 0);
        ps->ran_seen = false;
    }
    /* regrtest's "0:00:01 load avg: 0.52 [2/3] test_x": the next module */
    if (s == line && *s >= '0' && *s <= '9' && strstr(s, " [") && strstr(s, "] test"))
        ps->over = false;
    /* the report after the run ("FAIL: name (id)") repeats what each
     * test's own line said; it is kept for the rows that have no line of
     * their own (setUpClass, a module that did not import) and applied
     * at the end to those only, so that a test printing "ERROR: other
     * (m.C.other)" changes nothing */
    for (size_t i = 0; i < 3 && !ps->over; i++)
        if (starts(s, report[i].prefix)) {
            char *id = unittest_desc(s + strlen(report[i].prefix), &rest);
            if (id && ps->reports.n < RUNNER_MAX_TESTS) {
                strv_push(&ps->reports, xasprintf("%d%020llu%s", (int)report[i].st,
                                                  (unsigned long long)p->line_end, id));
            }
            free(id);
            free(doc);
            return;
        }
    char *dots = strstr(s, " ... ");
    if (dots) {
        *dots = '\0';
        char *tail = dots + 5;
        trim_right(tail);
        char *id = unittest_desc(s, &rest);
        if (id && *rest && *rest != ' ')
            free(id), id = NULL;
        if (!id && doc) {
            id = doc;  /* "First docstring line ... ok" */
            doc = NULL;
            rest = "";
        }
        /* while a test runs (announced, no result yet), a line naming
         * a test that already has its result is the running test's own
         * output: a test that prints "other (m.C.other) ... FAIL" does
         * not change the result of a test that ran before it. (A line
         * naming a test not yet run is taken: the running test may have
         * printed its last output without a newline, so that its own
         * result never came on a line of its own; a forgery against a
         * later test is not stopped.) */
        /* unittest prints one verbose line per test: a second plain line
         * about a test that has its result, or any after the run's
         * "Ran N tests" (a test's stdout, block-buffered off a terminal,
         * reaches the pipe when the process exits), is a test's output */
        size_t k = id ? find_test(p, NULL, id, false) : SIZE_MAX;
        bool had = k != SIZE_MAX && p->entries[k].has_result;
        if (id && (ps->over || (had && (!*rest || (p->pending != SIZE_MAX && k != p->pending))))) {
            free(id);
            free(doc);
            return;
        }
        if (id) {
            /* startTest() writes "name (id) ... " and flushes, then the
             * test runs: its start, in the output's bytes */
            if (!*rest)
                announced_at(p, test_started(p, NULL, id), line, tail);
            /* a subtest's line ("  name (id) (i=1) ... FAIL") counts for
             * its test: unittest re-runs tests, not subtests */
            if (unittest_status(tail, &st)) {
                size_t i = test_result(p, NULL, id, st);
                if (i == p->pending || !*rest)
                    p->pending = SIZE_MAX;
            } else if (!*rest) {
                p->pending = find_test(p, NULL, id, false);
            }
            free(id);
        }
        free(doc);
        return;
    }
    free(doc);
    trim_right(s);
    char *id = unittest_desc(s, &rest);
    if (id && !*rest) {
        /* verbose mode prints a test with a docstring on two lines */
        ps->doc_id = id;
        test_started(p, NULL, id);
        return;
    }
    free(id);
    /* the result after the test's own output */
    if (p->pending != SIZE_MAX && unittest_status(s, &st)) {
        result_at(p, p->pending, st);
        p->pending = SIZE_MAX;
    }
}

/* "name (id) ... ", flushed by startTest() before the test runs: the test
 * running, until the line ends with its result (runner_ops.partial). */
static char *unittest_partial(struct runner_parser *p, const char *line, size_t len)
{
    const struct python_state *ps = p->state;
    if (ps->over || len < 9 || len > 4096 || memcmp(line + len - 5, " ... ", 5) ||
        memchr(line, '\0', len) || line[0] == ' ')
        return NULL;
    char *s = xstrndup(line, len - 5);
    const char *rest = "";
    char *id = unittest_desc(s, &rest);
    bool more = id && *rest;  /* rest is in s */
    free(s);
    if (more) {
        free(id);
        return NULL;
    }
    /* a test that has its result already is not the one running */
    if (id && runner_parser_index(p, NULL, id) != SIZE_MAX &&
        p->entries[runner_parser_index(p, NULL, id)].has_result) {
        free(id);
        return NULL;
    }
    return id;
}

static bool pytest_word(const char *s, size_t len, enum test_status *out)
{
    static const struct { const char *w; enum test_status st; } words[] = {
        { "PASSED", TEST_PASSED }, { "FAILED", TEST_FAILED }, { "SKIPPED", TEST_SKIPPED },
        { "XFAIL", TEST_SKIPPED }, { "XPASS", TEST_PASSED }, { "ERROR", TEST_ERRORED },
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].w) == len && !memcmp(s, words[i].w, len)) {
            *out = words[i].st;
            return true;
        }
    return false;
}

/* "[ 42%]" or "[ 3/17]" at the end of a line: removed. */
static void pytest_strip_progress(char *s)
{
    size_t n = strlen(s);
    if (!n || s[n - 1] != ']')
        return;
    char *open = strrchr(s, '[');
    if (!open || open == s || open[-1] != ' ')
        return;
    const char *c = open + 1;
    while (*c == ' ')
        c++;
    size_t digits = strspn(c, "0123456789");
    if (!digits)
        return;
    c += digits;
    if (*c == '%')
        c++;
    else if (*c == '/' && strspn(c + 1, "0123456789"))
        c += 1 + strspn(c + 1, "0123456789");
    else
        return;
    if (*c != ']' || c[1])
        return;
    *open = '\0';
    trim_right(s);
}

/* "===== 1 failed, 3 passed, 1 skipped in 0.05s =====": the runner's
 * own count (errors, outside a test's call, count as failures) */
static bool pytest_counts(struct runner_parser *p, const char *line)
{
    size_t n = strlen(line);
    if (!starts(line, "=") || !n || line[n - 1] != '=' || !strstr(line, " in "))
        return false;
    bool seen = false;
    uint64_t passed = runner_count_of(line, "passed", &seen) + runner_count_of(line, "xpassed", &seen);
    uint64_t failed = runner_count_of(line, "failed", &seen) + runner_count_of(line, "error", &seen) +
                      runner_count_of(line, "errors", &seen);
    uint64_t skipped = runner_count_of(line, "skipped", &seen) + runner_count_of(line, "xfailed", &seen);
    bool none = strstr(line, "no tests ran") != NULL;
    if (seen || none)
        runner_count(p, passed, failed, skipped, 0);
    return seen || none;
}

static void pytest_line(struct runner_parser *p, char *line)
{
    struct python_state *ps = p->state;
    enum test_status st;
    if (pytest_counts(p, line))
        return;
    if (strstr(line, "short test summary info") && starts(line, "=")) {
        ps->summary = true;
        ps->failures = false;
        return;
    }
    /* "===== FAILURES =====" and "===== ERRORS =====": the tracebacks and
     * the tests' captured output, where a line a test printed
     * ("test_x.py::test_y FAILED") is no result */
    if (starts(line, "=") && (strstr(line, "= FAILURES =") || strstr(line, "= ERRORS =") ||
                              strstr(line, "= warnings summary =") || strstr(line, "= PASSES ="))) {
        ps->failures = true;
        return;
    }
    if (ps->failures)
        return;
    if (starts(line, "[gw")) {
        /* "[gw0] [ 41%] PASSED ID" */
        char *c = strchr(line, ']');
        if (!c || c[1] != ' ')
            return;
        c += 2;
        if (*c == '[') {
            char *close = strchr(c, ']');
            if (!close || close[1] != ' ')
                return;
            c = close + 2;
        }
        char *sp = strchr(c, ' ');
        if (sp && pytest_word(c, (size_t)(sp - c), &st) && sp[1]) {
            trim_right(sp + 1);
            test_result(p, NULL, sp + 1, st);
        }
        return;
    }
    /* xdist: "worker 'gw0' crashed while running 'ID'" */
    char *crash = strstr(line, "crashed while running '");
    if (crash && starts(skip_spaces(line), "worker '")) {
        char *id = crash + 23;
        size_t n = strlen(id);
        if (n > 1 && id[n - 1] == '\'') {
            id[n - 1] = '\0';
            test_result(p, NULL, id, TEST_ERRORED);
        }
        return;
    }
    if (ps->summary && (starts(line, "FAILED ") || starts(line, "ERROR "))) {
        /* "FAILED ID - message": the id is the longest known prefix
         * before a " - " (a parametrized id may hold one), else up to the
         * first (a collection error names a file never seen before) */
        char *id = line + (line[0] == 'F' ? 7 : 6);
        st = line[0] == 'F' ? TEST_FAILED : TEST_ERRORED;
        if (find_test(p, NULL, id, false) != SIZE_MAX) {
            test_result(p, NULL, id, st);
            return;
        }
        char *first = strstr(id, " - "), *known = NULL;
        size_t tries = 0;
        for (char *at = first; at && tries++ < 64; at = strstr(at + 1, " - ")) {
            *at = '\0';
            if (find_test(p, NULL, id, false) != SIZE_MAX)
                known = at;
            *at = ' ';
        }
        char *cut = known ? known : first;
        if (cut)
            *cut = '\0';
        if (*id)
            test_result(p, NULL, id, st);
        return;
    }
    if (line[0] == ' ' || !strstr(line, "::"))
        return;
    /* "ID STATUS (reason)  [ 5%]", the id printed before the test runs
     * (a line that ends there is the test still running) */
    size_t len = strlen(line);
    bool id_only = line[len - 1] == ' ';
    trim_right(line);
    pytest_strip_progress(line);
    len = strlen(line);
    for (size_t at = len; at-- > 0;) {
        if (line[at] != ' ')
            continue;
        char *w = line + at + 1;
        size_t wl = strcspn(w, " ");
        if (!pytest_word(w, wl, &st))
            continue;
        char *after = w + wl;
        if (*after && !(after[0] == ' ' && after[1] == '(' && line[len - 1] == ')'))
            continue;
        line[at] = '\0';
        if (strstr(line, "::"))
            test_result(p, NULL, line, st);
        return;
    }
    /* "ID " alone: the test now running (pytest prints the id, then runs
     * the test, then the outcome; xdist prints the id on a line of its own) */
    if (id_only)
        test_started(p, NULL, line);
}

/* unittest's -k takes a pattern matched against module.Class.method:
 * containing '*', with fnmatch over the whole name; otherwise as a
 * substring (so "-k m.C.test_a" would also run m.C.test_ab). The pattern
 * gets a '*' that matches nothing but the letter it stands for ("[t*]",
 * as names never contain '*'); fnmatch's own characters are bracketed. A
 * class-level error (setUpClass) re-runs the class, setUpModule the
 * module. */
static char *unittest_pattern(const char *id)
{
    size_t len = strlen(id);
    const char *suffixes[] = { ".setUpClass", ".tearDownClass", ".setUpModule", ".tearDownModule" };
    for (size_t i = 0; i < 4; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && !strcmp(id + len - n, suffixes[i]))
            return xasprintf("%.*s.*", (int)(len - n), id);
    }
    char *out = xmalloc(4 * len + 4), *o = out;
    bool star = false;
    for (const char *c = id; *c; c++) {
        if (strchr("*?[]", *c)) {
            *o++ = '[';
            *o++ = *c;
            *o++ = ']';
            star |= *c == '*';
        } else if (!star) {
            *o++ = '[';
            *o++ = *c;
            *o++ = '*';
            *o++ = ']';
            star = true;
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

static const char *const pytest_value_options[] = {
    "-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--rootdir", "--tb", "--dist", "--maxfail",
    "--deselect", "--ignore", "--ignore-glob", "--confcutdir", "--basetemp", "--durations",
    "--junitxml", "--junit-xml", "--import-mode", "--log-level", "--log-file", "--numprocesses",
    "--maxprocesses", "--timeout", "--capture", "--pyargs-root", "--override-ini", "--config-file",
    "--cov", "--cov-report", "--tx", "--rsyncdir", "--color", "--code-highlight", NULL,
};

/* unittest: -k may be given many times (a test runs when any pattern
 * matches it), the user's own -k removed; none: a pattern no dotted
 * Python name contains. */
static bool unittest_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                            struct strv *out)
{
    int n = (int)argv_len(argv);
    int d = end_of_options(argv, a + 1);
    for (int i = 0; i < d; i++) {
        if (i > a && !strcmp(argv[i], "-k")) {
            i++;
            continue;
        }
        if (i > a && !strncmp(argv[i], "-k", 2))
            continue;
        push(out, argv[i]);
    }
    for (size_t i = 0; i < count; i++) {
        push(out, "-k");
        strv_push(out, unittest_pattern(tests[i]->id));
    }
    if (!count) {
        push(out, "-k");
        push(out, "sbx:selects:no:test");
    }
    push_range(out, argv, d, n);
    return true;
}

static bool unittest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                           struct strv *out)
{
    return unittest_select(argv, a, tests, count, out);
}

static bool unittest_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    (void)t;
    return unittest_select(argv, a, NULL, 0, out);
}

/* pytest: the node ids, replacing the user's files and ids (node ids are
 * relative to pytest's rootdir: this assumes the run starts there, as the
 * audited one did); none: t's file collected (its imports, its module
 * code) and every test deselected by a -k no name matches, after the
 * user's own (the last -k wins). */
static bool pytest_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                          const struct runner_test *t, struct strv *out)
{
    int d = end_of_options(argv, a + 1);
    push_range(out, argv, 0, a + 1);
    for (int i = a + 1; i < d; i++) {
        if (argv[i][0] != '-')
            continue;  /* a file, directory or node id the user chose */
        push(out, argv[i]);
        if (takes_value(pytest_value_options, argv[i]) && argv[i + 1] && i + 1 < d)
            push(out, argv[++i]);
    }
    for (size_t i = 0; i < count; i++)
        push(out, tests[i]->id);
    if (!count) {
        const char *sep = strstr(t->id, "::");
        strv_push(out, sep ? xstrndup(t->id, (size_t)(sep - t->id)) : xstrdup(t->id));
        push(out, "-k");
        push(out, "sbx_selects_no_test");
    }
    return true;
}

static bool pytest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                         struct strv *out)
{
    return pytest_select(argv, a, tests, count, NULL, out);
}

static bool pytest_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    return pytest_select(argv, a, NULL, 0, t, out);
}

static void unittest_finish(struct runner_parser *p)
{
    struct python_state *ps = p->state;
    uint64_t end = p->line_end;
    for (size_t r = 0; r < ps->reports.n; r++) {
        const char *v = ps->reports.v[r], *id = v + 21;
        size_t k = find_test(p, NULL, id, false);
        if (k != SIZE_MAX && p->entries[k].has_result)
            continue;
        /* at the position of its report line */
        p->line_end = strtoull(v + 1, NULL, 10);
        test_result(p, NULL, id, (enum test_status)(v[0] - '0'));
    }
    p->line_end = end;
    static const char *const fixtures[] = { ".setUpClass", ".tearDownClass", ".setUpModule", ".tearDownModule" };
    for (size_t i = 0; i < p->n; i++) {
        const char *id = p->tests[i].id;
        bool fixture = starts(id, "unittest.loader._FailedTest.") || starts(id, "unittest.loader.ModuleImportFailure.");
        for (size_t f = 0; f < 4 && !fixture; f++)
            fixture = ends_with(id, fixtures[f]);
        if (fixture)
            test_kind(p, i, RUNNER_TEST_FIXTURE);
    }
}

static void pytest_finish(struct runner_parser *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strstr(p->tests[i].id, "::"))
            test_kind(p, i, RUNNER_TEST_FIXTURE);
}

static void *python_state_new(void)
{
    return xcalloc(1, sizeof(struct python_state));
}

static void python_state_free(void *state)
{
    struct python_state *ps = state;
    if (ps) {
        free(ps->doc_id);
        strv_free(&ps->reports);
    }
    free(ps);
}

static const struct runner_ops unittest_ops = {
    .add_reporter = unittest_reporter,
    .carries_reporter = python_carries_reporter,
    .greeting = python_greeting,
    .anchor = unittest_anchor,
    .command = cmd_unittest,
    .line = unittest_line,
    .partial = unittest_partial,
    .finish = unittest_finish,
    .rerun = unittest_rerun,
    .baseline = unittest_baseline,
    .state_new = python_state_new,
    .state_free = python_state_free,
};

static const struct runner_ops pytest_ops = {
    .add_reporter = pytest_reporter,
    .carries_reporter = python_carries_reporter,
    .greeting = python_greeting,
    .anchor = pytest_anchor,
    .command = cmd_pytest,
    .line = pytest_line,
    .finish = pytest_finish,
    .rerun = pytest_rerun,
    .baseline = pytest_baseline,
    .state_new = python_state_new,
    .state_free = python_state_free,
};

static const struct runner_ops regrtest_ops = {
    .add_reporter = regrtest_reporter,
    .carries_reporter = python_carries_reporter,
    .greeting = python_greeting,
    .anchor = regrtest_anchor,
    .command = cmd_regrtest,
    .line = unittest_line,
    .partial = unittest_partial,
    .finish = unittest_finish,
    .rerun = regrtest_rerun,
    .baseline = regrtest_baseline,
    .state_new = python_state_new,
    .state_free = python_state_free,
};

const struct runner runner_regrtest = { RUNNER_REGRTEST, "regrtest", "python -m test (CPython's suite)",
                                        RUNNER_ATTRIBUTE_REPORTED, &regrtest_ops };
const struct runner runner_unittest = { RUNNER_UNITTEST, "unittest", "python -m unittest",
                                        RUNNER_ATTRIBUTE_PLACED, &unittest_ops };
const struct runner runner_pytest = { RUNNER_PYTEST, "pytest", "pytest or python -m pytest",
                                      RUNNER_ATTRIBUTE_REPORTED, &pytest_ops };
