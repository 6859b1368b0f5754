//! How a failure is classified for the person who runs capkg: whose fault it is and what to do.
//!
//! Every library error type implements [`Classified`]; the CLI alone turns a class into an exit
//! code (`cli::CommandError`), so the decision is made once and the error keeps its cause chain.

/// Whose fault a failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The input is wrong, or a remote refused it (a 403, a conflicting release): exit 1. Running
    /// again without changing something gives the same answer.
    Refusal,
    /// capkg could not do its job (a network failure, an unreadable file, a bad flag, a bug):
    /// exit 2.
    Fault,
}

impl ErrorClass {
    /// The process exit code of the class: the one place the numbers are decided
    /// (`cli::CommandError` and the `exit_code` of JSON reports both read it).
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorClass::Refusal => 1,
            ErrorClass::Fault => 2,
        }
    }

    /// `Refusal` when `refusal`, else `Fault`.
    pub fn refusal_if(refusal: bool) -> Self {
        if refusal {
            ErrorClass::Refusal
        } else {
            ErrorClass::Fault
        }
    }
}

/// An error that knows its class and, where it can, what the user should do about it.
pub trait Classified: std::error::Error + Send + Sync + 'static {
    fn class(&self) -> ErrorClass;

    /// One sentence saying what to do, shown under the error.
    fn hint(&self) -> Option<String> {
        None
    }

    /// Shorthand for `class() == Refusal`.
    fn is_refusal(&self) -> bool {
        self.class() == ErrorClass::Refusal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_exit_1_and_faults_exit_2() {
        assert_eq!(ErrorClass::Refusal.exit_code(), 1);
        assert_eq!(ErrorClass::Fault.exit_code(), 2);
        assert_eq!(ErrorClass::refusal_if(true), ErrorClass::Refusal);
        assert_eq!(ErrorClass::refusal_if(false), ErrorClass::Fault);
    }
}
