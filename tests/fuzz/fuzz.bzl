"""weft_fuzzer: a libFuzzer target, built only with --config=fuzz."""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def weft_fuzzer(name, deps = [], srcs = None):
    # manual: only tools/run_fuzzers.sh builds these (gcc has no -fsanitize=fuzzer).
    cc_binary(
        name = name,
        testonly = True,
        srcs = srcs if srcs != None else [name + ".cc"],
        tags = ["manual"],
        linkopts = ["-fsanitize=fuzzer"],
        deps = deps + [":fuzz_check"],
    )
