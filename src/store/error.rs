//! Store errors.

use crate::domain::Layer;

/// What went wrong in a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store URL is neither `sqlite://...` nor `postgres://...`.
    #[error(
        "store URL {0:?} is not understood: expected sqlite://FILE.gpkg or postgres://USER@HOST/DB"
    )]
    Url(String),
    /// A store URL that names something wrong (a schema that is not a plain identifier).
    #[error("store URL {url}: {reason}")]
    UrlPart {
        /// The URL, its password removed.
        url: String,
        /// What is wrong, naming the parameter.
        reason: String,
    },
    /// A registry was opened that was never created with `ms4 init`.
    #[error("{0} holds no registry: run `ms4 init --jurisdiction <id> --crs EPSG:<code>` first")]
    NotInitialised(String),
    /// `init` on a store that already holds a registry.
    #[error("{0} already holds a registry for {1}")]
    AlreadyInitialised(String, String),
    /// The database said no.
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored geometry could not be decoded.
    #[error("layer {layer}, feature {id:?}: stored geometry is unreadable: {source}")]
    Geometry {
        /// The layer.
        layer: Layer,
        /// The feature's id.
        id: String,
        /// Why.
        source: crate::domain::wkb::WkbError,
    },
    /// A stored row cannot be read (see [`crate::store::Store::read_layer`]).
    #[error("layer {}, feature {}: {}", .0.layer, .0.id.as_deref().unwrap_or("with an unreadable id"), .0.reason)]
    Unreadable(crate::store::UnreadableRow),
    /// A stored value does not match its column's type.
    #[error("layer {layer}, feature {id:?}, field {field}: {message}")]
    Value {
        /// The layer.
        layer: Layer,
        /// The feature's id.
        id: String,
        /// The field.
        field: String,
        /// Why.
        message: String,
    },
    /// A write was abandoned by its producer (for example an import whose source failed);
    /// the transaction was rolled back.
    #[error("write abandoned, nothing was changed: {0}")]
    Aborted(String),
    /// An update ([`crate::store::update`]) found no stored row with this id.
    #[error("layer {layer}: no feature has id {id:?}")]
    NotFound {
        /// The layer.
        layer: Layer,
        /// The id asked for.
        id: String,
    },
    /// An update's rule refused the change it was asked for, judged against the stored
    /// row; the transaction was rolled back.
    #[error("{field}: {message}")]
    Refused {
        /// The request's field at fault.
        field: String,
        /// Why, with what would be accepted.
        message: String,
    },
    /// An update named the version of the row it was made from, and the stored row is
    /// no longer that version: someone changed it since; nothing was written.
    #[error("layer {layer}, feature {id:?}: changed since version {expected} was read (it is now {stored}); nothing was changed, read it again")]
    Changed {
        /// The layer.
        layer: Layer,
        /// The feature's id.
        id: String,
        /// The version the update was made from.
        expected: String,
        /// The version stored.
        stored: String,
    },
    /// A write that records a row once found one stored with its id (under the write
    /// lock, so no other write can slip between the check and the insert); nothing was
    /// written.
    #[error("{message}")]
    Exists {
        /// The layer.
        layer: Layer,
        /// The id stored already.
        id: String,
        /// What is recorded already, for the person who asked.
        message: String,
    },
    /// A bookkeeping row (a token, say) that cannot be read back.
    #[error("unreadable registry record: {0}")]
    Corrupt(String),
}

/// Result alias for store calls.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
