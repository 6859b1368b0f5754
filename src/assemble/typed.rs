//! Typed round trips (placeholder).
