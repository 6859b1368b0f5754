//! What publish and verify both need to talk to a forge or registry: the HTTP client with its
//! retries, credentials bound to origins and redaction ([`http`]).
pub mod http;
pub mod oci;
