"""Ratings, pure (no storage): TrueSkill for free-for-all games, the rating table, how sure each rank
is, and head-to-head records."""
