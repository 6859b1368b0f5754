//! What publish and verify both need to talk to a forge or registry: the HTTP client and its
//! request loop ([`http`]) within the bounds of a [`policy`], on a [`clock`] passed in, with its
//! transfer-rate watchdog (`rate`); tokens and their redaction ([`secret`]), a token bound to the
//! origins it may go to ([`credential`]), which credential may go where ([`origin`], the one rule
//! every read follows); the Docker config file ([`docker_config`]); base64 and percent-encoding
//! ([`encoding`]); URL facts ([`url`]); lists read in bounded pages ([`pages`]); progress events
//! ([`progress`]); and per forge its API's defaults, URL building, token resolution and the
//! response models capkg reads ([`github`], [`gitlab`], [`oci`], registry logins in [`login`]).
//! Nothing here imports `targets` or `verify`: both build on this layer.
pub(crate) mod clock;
pub(crate) mod credential;
pub(crate) mod docker_config;
pub(crate) mod encoding;
pub(crate) mod github;
pub(crate) mod gitlab;
pub(crate) mod history;
pub(crate) mod http;
pub(crate) mod login;
pub(crate) mod oci;
pub(crate) mod origin;
pub(crate) mod pages;
pub(crate) mod policy;
pub(crate) mod progress;
mod rate;
pub(crate) mod secret;
pub(crate) mod url;

use std::fmt;
use std::sync::Arc;

use self::clock::{Clock, SystemClock};
use self::credential::Credential;
use self::http::{Http, HttpError};
use self::policy::RetryPolicy;
use self::progress::{NoProgress, Progress};

/// What a forge client (a target, verify) needs from its caller: how to retry, what time it is, where progress goes.
#[derive(Clone)]
pub(crate) struct Services {
    pub policy: RetryPolicy,
    pub clock: Arc<dyn Clock>,
    pub progress: Arc<dyn Progress>,
}

impl Services {
    /// An HTTP client with these services, sending `credential` (bound to its origins) if any.
    pub(crate) fn http(&self, credential: Option<Credential>) -> Result<Http, HttpError> {
        Http::new(
            self.policy.clone(),
            self.clock.clone(),
            self.progress.clone(),
            credential,
        )
    }
}

impl Default for Services {
    fn default() -> Self {
        Self {
            policy: RetryPolicy::default(),
            clock: Arc::new(SystemClock),
            progress: Arc::new(NoProgress),
        }
    }
}

impl fmt::Debug for Services {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Services")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}
