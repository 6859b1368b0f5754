//! What publish and verify both need to talk to a forge or registry: the HTTP client with its
//! retries, credentials bound to origins and redaction ([`http`]), progress events
//! ([`progress`]), and per forge its API's defaults, URL building, token resolution, pagination
//! and the response models capkg reads ([`github`], [`gitlab`]). Nothing here imports
//! `targets` or `verify`: both build on this layer.
pub mod github;
pub mod gitlab;
pub mod http;
pub mod progress;
pub mod url;
