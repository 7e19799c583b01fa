"""The rank statistics on the wire (issue 16): rating rows with and without their confidence
figures, head-to-head pairs, and replies of an arena older than these fields."""

from __future__ import annotations

from arena.api import arena_wire as server_wire
from arena.cli import remote_wire as client_wire
from arena.ratings.head_to_head import PairRecord
from arena.ratings.table import RatingRow
from sdk.wire import arena_pb2 as pb
from sdk.wire.arena_client import request

ROW = RatingRow(2, "ann", 27.5, 1.25, 23.75, 12, 3.5, 30.25, 1.75)


def test_rating_rows_round_trip_with_every_confidence_figure_or_none() -> None:
    for row in (
        ROW,
        RatingRow(2, "ann", 27.5, 1.25, 23.75, 12, 3.5, 30.25, 1.75, rank_low=1, rank_high=3, confidence=0.75),
        RatingRow(2, "ann", 27.5, 1.25, 23.75, 12, 3.5, 30.25, 1.75, 1, 3, 0.75, 0.0),
        RatingRow(1, "bob", 30.0, 1.0, 27.0, 12, 6, 33.0, 1.5, 1, 1, None, None),
    ):
        msg = server_wire.rating_row_to_pb(row)
        assert client_wire.rating_row_from_pb(pb.RatingRow.FromString(msg.SerializeToString())) == row


def test_a_zero_bootstrap_share_is_sent_not_dropped() -> None:
    row = RatingRow(2, "ann", 27.5, 1.25, 23.75, 12, 3.5, 30.25, 1.75, 1, 3, 0.75, 0.0)
    assert server_wire.rating_row_to_pb(row).HasField("bootstrap_confidence")


def test_a_row_from_an_older_arena_has_no_confidence_figures() -> None:
    old = pb.RatingRow(rank=1, bot="ann", mu=25, sigma=8, conservative=1, games=0, wins=0)
    row = client_wire.rating_row_from_pb(old)
    assert (row.rank_low, row.rank_high, row.confidence, row.bootstrap_confidence) == (None, None, None, None)


def test_head_to_head_pairs_and_the_bootstrap_request_round_trip() -> None:
    pair = PairRecord("ann", "bob", 7, 4, 2, 1, -3.25, 0.6875)
    reply = server_wire.page_reply(pb.HeadToHeadResponse, [pair], "next")
    assert client_wire.HEAD_TO_HEAD.read(pb.HeadToHeadResponse.FromString(reply.SerializeToString()), None)[0] == [pair]
    assert reply.next_page_token == "next"
    ratings = request("Ratings", tournament="cup", page_size=10, page_token="tok", bootstrap_resamples=50)
    assert (server_wire.scope_from_pb(ratings), ratings.bootstrap_resamples) == ("cup", 50)
    assert server_wire.scope_from_pb(request("HeadToHead", tournament=None)) is None
