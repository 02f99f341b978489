"""One fuzz target, built two ways (fuzz/README.md)."""

def cc_fuzz_target(name, srcs, deps):
    """Declares <name>_lib (the LLVMFuzzerTestOneInput), <name> and <name>_test.

    <name> is the libFuzzer binary under --config=fuzz (clang-14) and the standalone driver otherwise;
    <name>_test runs the standalone driver over corpus/<name>/ plus a few seconds of seeded mutations, in the
    normal test suite.
    """
    native.cc_library(
        name = name + "_lib",
        testonly = 1,
        srcs = srcs,
        deps = deps + ["//fuzz:fuzz_check"],
        alwayslink = 1,
    )
    native.cc_binary(
        name = name,
        testonly = 1,
        deps = [":" + name + "_lib"] + select({
            "//fuzz:libfuzzer": [],
            "//conditions:default": ["//fuzz:standalone_driver"],
        }),
        linkopts = select({
            "//fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.cc_test(
        name = name + "_test",
        size = "small",
        args = ["--seconds=2", "fuzz/corpus/" + name],
        data = native.glob(["corpus/" + name + "/**"]),
        deps = [
            ":" + name + "_lib",
            "//fuzz:standalone_driver",
        ],
    )
