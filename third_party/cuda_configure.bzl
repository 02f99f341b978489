"""Finds CUDA and NCCL on the build host; generates real targets when present, empty ones otherwise.

Looks at $CUDA_HOME, else /usr/local/cuda. Set COMMBENCH_NO_CUDA=1 to build as if CUDA were absent.
The generated repository exports HAVE_CUDA (defs.bzl) and targets :cuda (runtime + NCCL + the
COMMBENCH_HAVE_CUDA define), so that BUILD files need no select().
"""

def _find_lib(repository_ctx, root, names):
    for sub in ["lib64", "lib", "targets/x86_64-linux/lib"]:
        for name in names:
            if repository_ctx.path("%s/%s/%s" % (root, sub, name)).exists:
                return "%s/%s" % (root, sub)
    return None

def _cuda_configure_impl(repository_ctx):
    env = repository_ctx.os.environ
    root = env.get("CUDA_HOME", "/usr/local/cuda")
    disabled = env.get("COMMBENCH_NO_CUDA", "") not in ["", "0"]
    reason = ""
    cudart_dir = None
    nccl_dir = None
    if disabled:
        reason = "COMMBENCH_NO_CUDA is set"
    elif not repository_ctx.path(root + "/include/cuda_runtime_api.h").exists:
        reason = "no CUDA toolkit at %s (set CUDA_HOME)" % root
    else:
        cudart_dir = _find_lib(repository_ctx, root, ["libcudart.so"])
        nccl_dir = _find_lib(repository_ctx, root, ["libnccl.so"])
        if not cudart_dir:
            reason = "no libcudart.so under %s" % root
        elif not nccl_dir or not repository_ctx.path(root + "/include/nccl.h").exists:
            reason = "no NCCL (nccl.h, libnccl.so) under %s" % root

    have = reason == ""
    if have:
        repository_ctx.symlink(root + "/include", "include")
        build = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cuda",
    hdrs = glob(["include/*.h", "include/*.hpp", "include/crt/**", "include/cuda/**", "include/nv/**", "include/nccl_device/**"]),
    includes = ["include"],
    defines = ["COMMBENCH_HAVE_CUDA"],
    linkopts = [
        "-L{cudart}", "-Wl,-rpath,{cudart}", "-lcudart",
        "-L{nccl}", "-Wl,-rpath,{nccl}", "-lnccl",
    ],
)
""".format(cudart = cudart_dir, nccl = nccl_dir)
    else:
        build = """
package(default_visibility = ["//visibility:public"])

cc_library(name = "cuda")
"""
    repository_ctx.file("BUILD.bazel", build)
    repository_ctx.file("defs.bzl", "HAVE_CUDA = %s\nCUDA_ROOT = %r\nCUDA_ABSENT_REASON = %r\n" % (
        "True" if have else "False",
        root if have else "",
        reason,
    ))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_HOME", "COMMBENCH_NO_CUDA"],
    local = True,
)
