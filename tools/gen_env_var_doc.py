"""Write docs/env_var.md from the library's environment-variable registry.

Run: python tools/gen_env_var_doc.py [--check]   (--check exits 1 when the file is stale)
"""
import os
import sys

HEADER = """# Environment variables

Every `MXNET_*` variable the library reads is listed here. Each is read the first time it is
needed and the value is kept. `mx.util.setenv` (C API `MXSetEnv`, which `mx.test_utils.environment`
uses) drops the kept values, so a variable read per use sees the change at once; settings
taken at start-up (engine threads, memory pools) keep theirs. A malformed value (for example `MXNET_CPU_WORKER_NTHREADS=abc` or
`MXNET_ENGINE_TYPE=Bogus`) logs a warning that names the variable, the value and what was
expected, and the documented default is used instead.

This file is generated from the registry in `src/common/env_vars.cc` by
`python tools/gen_env_var_doc.py`; a test fails when the two disagree.

"""


def render(table):
    out = [HEADER]
    for name, typ, default, choices, doc in table:
        out.append("## `%s`\n" % name)
        out.append("- Type: %s" % typ)
        out.append("- Default: `%s`" % default if default != "" else "- Default: unset")
        if choices:
            out.append("- Values: " + ", ".join("`%s`" % c for c in choices.split("|")))
        out.append("")
        out.append(doc)
        out.append("")
    return "\n".join(out)


def main():
    import mxnet  # noqa: F401  (the installed or PYTHONPATH build)
    from mxnet import util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "env_var.md")
    text = render(util.env_var_table())
    if "--check" in sys.argv:
        with open(path) as f:
            if f.read() != text:
                print("docs/env_var.md is stale: run python tools/gen_env_var_doc.py")
                return 1
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
