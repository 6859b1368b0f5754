//! Time, passed in: the clock every forge client reads and sleeps on, so tests control it (a
//! rate-limit scenario runs without waiting).

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// A boxed future, so that [`crate::targets::Target`] can be used as a trait object.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The time source and the sleeper, passed in so tests control time.
pub(crate) trait Clock: Send + Sync {
    fn now(&self) -> SystemTime;
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// Real time, with tokio's timer.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}
