//! `report --annotate` (placeholder until the next step).
