//! Roles and API tokens: who may read, import, inspect and manage tokens.
//!
//! A token is 32 random bytes, shown once in hex (`ms4_…`) when it is created; the store
//! keeps only its SHA-256, so neither a copy of the registry nor its audit log can be used
//! to call the API.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What a token's holder may do. Every role may read; each write needs its own role, and
/// `admin` may do everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Imports and edits layers.
    Analyst,
    /// Records inspections and their photos.
    Inspector,
    /// Runs the illicit discharge programme: opens cases, logs their actions (notices,
    /// citations, appeals) and closes them; may also inspect.
    Officer,
    /// Asks for determinations (reads only).
    Planner,
    /// Everything, including token management.
    Admin,
}

impl Role {
    /// Every role, in the order the docs list them.
    pub const ALL: [Role; 5] = [
        Role::Analyst,
        Role::Inspector,
        Role::Officer,
        Role::Planner,
        Role::Admin,
    ];

    /// The role's name as stored and as typed.
    pub fn name(self) -> &'static str {
        match self {
            Role::Analyst => "analyst",
            Role::Inspector => "inspector",
            Role::Officer => "officer",
            Role::Planner => "planner",
            Role::Admin => "admin",
        }
    }

    /// Whether this role may do what `needed` allows (admin may do anything; an officer
    /// may also inspect, as the officer often screens an outfall in person).
    pub fn allows(self, needed: Role) -> bool {
        self == needed
            || self == Role::Admin
            || (self == Role::Officer && needed == Role::Inspector)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A role name that is not one.
#[derive(Debug, thiserror::Error)]
#[error("unknown role {0:?}; expected analyst, inspector, officer, planner or admin")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| UnknownRole(s.to_string()))
    }
}

/// A token as the store keeps it: its hash, never the token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// The store's id for it (what `ms4 token revoke` takes).
    pub token_id: i64,
    /// SHA-256 of the token, in hex.
    #[serde(skip_serializing)]
    pub hash: String,
    /// What it may do.
    pub role: Role,
    /// Who holds it: recorded in the audit log with every write made with it.
    pub subject: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it stops working, if ever.
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
}

impl TokenRecord {
    /// Why the token does not work at `now`, or `None` when it does.
    pub fn unusable(&self, now: DateTime<Utc>) -> Option<&'static str> {
        if self.revoked_at.is_some() {
            Some("the token was revoked")
        } else if self.expires_at.is_some_and(|e| e <= now) {
            Some("the token has expired")
        } else {
            None
        }
    }
}

/// A token to be stored.
#[derive(Debug, Clone)]
pub struct NewToken {
    /// SHA-256 of the token, in hex.
    pub hash: String,
    /// What it may do.
    pub role: Role,
    /// Who holds it.
    pub subject: String,
    /// When it stops working, if ever.
    pub expires_at: Option<DateTime<Utc>>,
}

/// The longest subject or inspector name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// Checks a person's name as given for a token subject or an inspector: trimmed, not
/// empty, at most [`MAX_NAME_CHARS`], and free of control characters (a newline or an
/// escape would forge lines in logs and audit reports; a NUL would cut it in a store).
/// The error says what is wrong, without the field's name.
pub fn check_name(name: &str) -> Result<&str, String> {
    let t = name.trim();
    if t.is_empty() {
        return Err("is empty: give a name".into());
    }
    if let Some(c) = t.chars().find(|c| c.is_control()) {
        return Err(format!(
            "holds the control character U+{:04X}; use printable text",
            c as u32
        ));
    }
    let n = t.chars().count();
    if n > MAX_NAME_CHARS {
        return Err(format!(
            "{n} characters is over the limit of {MAX_NAME_CHARS}"
        ));
    }
    Ok(t)
}

/// A fresh random token, `ms4_` and 64 hex digits.
pub fn generate() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("ms4_{}", hex(&bytes))
}

/// The SHA-256 of a token, in hex: what the store keeps and looks tokens up by.
pub fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashes_stable() {
        let a = generate();
        let b = generate();
        assert_ne!(a, b);
        assert!(a.starts_with("ms4_") && a.len() == 68, "{a}");
        assert_eq!(hash(&a), hash(&a));
        assert_ne!(hash(&a), hash(&b));
        // SHA-256 of the empty string, a known vector.
        assert_eq!(
            hash(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn roles_parse_and_admin_may_do_anything() {
        assert_eq!("Inspector".parse::<Role>().unwrap(), Role::Inspector);
        assert!("janitor".parse::<Role>().is_err());
        assert!(Role::Admin.allows(Role::Analyst));
        assert!(!Role::Planner.allows(Role::Inspector));
        assert!(Role::Inspector.allows(Role::Inspector));
        assert!(Role::Officer.allows(Role::Inspector));
        assert!(!Role::Inspector.allows(Role::Officer));
        assert!(!Role::Officer.allows(Role::Analyst));
    }

    #[test]
    fn revoked_and_expired_tokens_are_unusable() {
        let now = Utc::now();
        let mut t = TokenRecord {
            token_id: 1,
            hash: hash("x"),
            role: Role::Analyst,
            subject: "a".into(),
            created_at: now,
            expires_at: None,
            revoked_at: None,
        };
        assert_eq!(t.unusable(now), None);
        t.expires_at = Some(now);
        assert_eq!(t.unusable(now), Some("the token has expired"));
        t.expires_at = None;
        t.revoked_at = Some(now);
        assert_eq!(t.unusable(now), Some("the token was revoked"));
    }
}
