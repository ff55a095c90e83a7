"""weft as a torch.distributed backend: every operation against a serial reference at 2
and 4 processes, subgroups, refusals and a dead peer."""

import pytest

import harness
import workers


@pytest.mark.parametrize("size", [2, 4])
def test_reductions_match_the_serial_reference(size):
    assert harness.run(workers.reductions, size) == ["ok"] * size


@pytest.mark.parametrize("size", [2, 4])
def test_data_movement_matches_the_serial_reference(size):
    assert harness.run(workers.movement, size) == ["ok"] * size


@pytest.mark.parametrize("size", [2, 4])
def test_point_to_point(size):
    assert harness.run(workers.point_to_point, size) == ["ok"] * size


def test_subgroups():
    assert harness.run(workers.subgroups, 4) == ["ok"] * 4


def test_bad_arguments_are_refused_with_the_operation_and_rank():
    refusals = harness.run(workers.bad_arguments, 2)
    assert "allreduce" in refusals[0][0] and "Short" in refusals[0][0]
    assert "all_gather" in refusals[0][1]
    assert "AVG" in refusals[0][2]


def test_a_dead_peer_fails_the_others_naming_it():
    results = harness.run(workers.peer_dies, 3, may_vanish={1})
    for rank in (0, 2):
        kind, message, seconds = results[rank]
        assert kind == "DistBackendError", message
        assert "rank 1" in message, message
        assert seconds < 30, seconds  # the timeout is 60 s: the failure came from the peer
