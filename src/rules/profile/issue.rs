//! A failed check of a profile: the key path and what is wrong. Its own file, so the
//! checks of each part of a profile (`validate`, `bounds`, `idde`) share it without
//! depending on one another.

/// A failed check: the key path and what is wrong.
pub(super) struct Issue {
    pub key: String,
    pub message: String,
}

/// A check's result.
pub(super) type Check = Result<(), Issue>;

/// A failed check of `key`.
pub(super) fn fail(key: impl Into<String>, message: impl Into<String>) -> Check {
    Err(Issue {
        key: key.into(),
        message: message.into(),
    })
}
