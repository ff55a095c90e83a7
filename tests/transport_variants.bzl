"""Runs one multi-process test binary over each transport configuration."""

load("@rules_cc//cc:defs.bzl", "cc_test")

# name: shared memory forced (a peer it cannot reach is an error, not a silent fallback)
# name_tcp: TCP only
# name_mixed: odd ranks in IPC namespaces of their own, so one job mixes both links
# name_lazy: TCP only, every connection made on first use (WEFT_CONNECT=lazy)
# name_ib: verbs forced for every peer, this host's included, over the soft verbs device
#   (tests/transport/ib/soft_verbs), which every variant links and only this one installs
_VARIANTS = {
    "": {"WEFT_TRANSPORTS": "shm"},
    "_tcp": {"WEFT_TRANSPORTS": "tcp"},
    "_mixed": {"WEFT_TEST_ODD_RANKS_OWN_IPC": "1"},
    "_lazy": {"WEFT_TRANSPORTS": "tcp", "WEFT_CONNECT": "lazy"},
    "_ib": {"WEFT_TRANSPORTS": "ib", "WEFT_TEST_SOFT_VERBS": "1"},
}

_SOFT_VERBS = "//tests/transport/ib/soft_verbs:soft_verbs_from_env"

def cc_test_per_transport(name, full_only = [], without = [], tags = [], deps = [], **kwargs):
    """One cc_test per variant; those whose suffix full_only lists are tagged "full".

    A "full" test runs only in tools/run_tests.sh --full (tests/BUILD). The variants
    whose suffix `without` lists are not made at all.
    """
    for suffix, env in _VARIANTS.items():
        if suffix in without:
            continue
        variant_tags = tags + (["full"] if suffix in full_only else [])
        cc_test(
            name = name + suffix,
            env = env,
            tags = variant_tags,
            deps = deps + [_SOFT_VERBS],
            **kwargs
        )
