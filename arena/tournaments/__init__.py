"""Tournaments: settings and failure policy, entries, fair deals, the schedule, the stop rule, and the
runner that plays their games."""
