"""Runs one multi-process test binary over each transport configuration."""

load("@rules_cc//cc:defs.bzl", "cc_test")

# name: shared memory forced (a peer it cannot reach is an error, not a silent fallback)
# name_tcp: TCP only
# name_mixed: odd ranks in IPC namespaces of their own, so one job mixes both links
# name_lazy: TCP only, every connection made on first use (WEFT_CONNECT=lazy)
_VARIANTS = {
    "": {"WEFT_TRANSPORTS": "shm"},
    "_tcp": {"WEFT_TRANSPORTS": "tcp"},
    "_mixed": {"WEFT_TEST_ODD_RANKS_OWN_IPC": "1"},
    "_lazy": {"WEFT_TRANSPORTS": "tcp", "WEFT_CONNECT": "lazy"},
}

def cc_test_per_transport(name, full_only = [], tags = [], **kwargs):
    """One cc_test per variant; those whose suffix full_only lists are tagged "full".

    A "full" test runs only in tools/run_tests.sh --full (tests/BUILD).
    """
    for suffix, env in _VARIANTS.items():
        variant_tags = tags + (["full"] if suffix in full_only else [])
        cc_test(name = name + suffix, env = env, tags = variant_tags, **kwargs)
