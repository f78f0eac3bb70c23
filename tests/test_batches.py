from triage_app.engine.batches import padded_width, plan_buckets
from triage_app.engine.stats import RunStats


def test_sorted_buckets_pad_only_to_their_own_max():
    lengths = [50, 3, 40, 4, 41, 5]
    buckets = plan_buckets(list(range(6)), lengths, uses_prefix=True, sort=True, max_rows=2, token_budget=None)
    assert [b.items for b in buckets] == [(1, 3), (5, 2), (4, 0)]
    assert [b.width for b in buckets] == [4, 40, 50]
    assert sum(b.padding_tokens for b in buckets) == 1 + 35 + 9


def test_arrival_order_when_not_sorted():
    buckets = plan_buckets([10, 11, 12], [5, 1, 5], uses_prefix=False, sort=False, max_rows=2, token_budget=None)
    assert [b.items for b in buckets] == [(10, 11), (12,)]
    assert buckets[0].padding_tokens == 4


def test_token_budget_bounds_rows_times_width():
    lengths = [10] * 8 + [100] * 3 + [600]
    buckets = plan_buckets(list(range(12)), lengths, uses_prefix=True, sort=True, max_rows=32, token_budget=200)
    assert all(len(b.items) * b.width <= 200 for b in buckets if len(b.items) > 1)
    assert [len(b.items) for b in buckets] == [8, 2, 1, 1]
    # longer than the budget: still runs, alone
    assert buckets[-1].items == (11,) and buckets[-1].width == 600
    assert sorted(i for b in buckets for i in b.items) == list(range(12))


def test_global_padding_inflation_covers_every_chunk_planned():
    stats = RunStats(total=3)
    stats.count_planned([])
    assert stats.global_padding_inflation == 1.0
    stats.count_planned([1, 3])
    assert stats.global_padding_inflation == 2 * 3 / 4
    stats.count_planned([4])
    assert stats.global_padding_inflation == 3 * 4 / 8


def test_width_step_rounds_every_width_up_and_keeps_the_budget():
    lengths = [3, 17, 18, 40, 5, 33]
    buckets = plan_buckets(list(range(6)), lengths, uses_prefix=True, sort=True, max_rows=8, token_budget=96,
                           width_step=16)
    # 4 x 32 and 3 x 48 would break the budget: the rounded width, not the longest row, counts
    assert [b.lengths for b in buckets] == [(3, 5, 17), (18, 33), (40,)]
    assert [b.width for b in buckets] == [32, 48, 48]
    assert sum(b.padding_tokens for b in buckets) == 3 * 32 - (3 + 5 + 17) + 2 * 48 - (18 + 33) + 48 - 40
    assert padded_width(16, 16) == 16 and padded_width(17, 16) == 32 and padded_width(17, 1) == 17


def test_first_budget_keeps_only_the_first_batch_small():
    lengths = [10] * 12
    buckets = plan_buckets(list(range(12)), lengths, uses_prefix=True, sort=True, max_rows=32, token_budget=100,
                           first_budget=30)
    assert [len(b.items) for b in buckets] == [3, 9]
