//! clusterctl's install-time pipeline (placeholder).
