//! Errors of loading a jurisdiction profile. Each names the file and, where it can, the key
//! path, so that the person editing the TOML finds the line to fix.

use std::path::PathBuf;

use super::locate;

/// A profile that could not be read, parsed or checked.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file is not valid TOML.
    #[error("{source_name}: line {line}, column {column}: {message}")]
    Syntax {
        /// File name (or other label) of the profile.
        source_name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A key or value does not fit the schema or fails a check.
    #[error("{source_name}: {key}: {message}{}", line_note(.line))]
    Invalid {
        /// File name (or other label) of the profile.
        source_name: String,
        /// Key path, e.g. `thresholds.land_development_activity.unit`.
        key: String,
        /// What is wrong.
        message: String,
        /// 1-based line, when known.
        line: Option<usize>,
    },
    /// The profile file could not be read.
    #[error("cannot read jurisdiction profile {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No built-in profile has this id: the message says how a town not built in starts.
    #[error(
        "no built-in jurisdiction profile {id:?} (built-in: {}); for another town, write its \
         profile with `ms4 profile new --family <family> --name \"Town of …\" --out <folder>` \
         and give that folder as --profiles",
        .known.join(", ")
    )]
    UnknownBuiltin {
        /// The id asked for.
        id: String,
        /// The built-in ids.
        known: Vec<String>,
    },
    /// The id cannot name a profile file.
    #[error("{id:?} is not a jurisdiction profile id: use lower-case letters, digits and hyphens")]
    BadId {
        /// The id given.
        id: String,
    },
}

fn line_note(line: &Option<usize>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

impl ProfileError {
    /// The key path an `Invalid` error is about.
    pub fn key(&self) -> Option<&str> {
        match self {
            ProfileError::Invalid { key, .. } => Some(key),
            _ => None,
        }
    }

    pub(super) fn invalid(source_name: &str, key: String, message: String) -> ProfileError {
        ProfileError::Invalid {
            source_name: source_name.to_string(),
            key,
            message,
            line: None,
        }
    }

    /// A TOML syntax error.
    pub(super) fn syntax(source_name: &str, text: &str, error: &toml::de::Error) -> ProfileError {
        let start = error.span().map_or(0, |span| span.start);
        let (line, column) = line_column(text, start);
        ProfileError::Syntax {
            source_name: source_name.to_string(),
            line,
            column,
            message: one_line(error.message()),
        }
    }

    /// A schema error from deserializing valid TOML, placed at its key path.
    pub(super) fn schema(source_name: &str, text: &str, error: &toml::de::Error) -> ProfileError {
        let mut message = one_line(error.message());
        let missing = message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split('`').next())
            .map(str::to_string);
        let mut start = error
            .span()
            .filter(|span| !span.is_empty())
            .map(|span| span.start);
        if missing.is_some() {
            // The span is the table that lacks the key: a header, an inline table, or the
            // top-level key-values before the first header.
            start = start.map(|s| s + skip_comments(&text[s.min(text.len())..]));
            if !start.is_some_and(|s| matches!(text.as_bytes().get(s), Some(b'[' | b'{'))) {
                start = None;
            }
        }
        let mut key = start.map_or_else(String::new, |start| locate::key_path_at(text, start));
        if let Some(field) = missing {
            let field = locate::key_segment(&field);
            key = if key.is_empty() {
                field
            } else {
                format!("{key}.{field}")
            };
            message = "required key is missing".to_string();
        } else if let Some(rest) = message.strip_prefix("unknown field") {
            message = format!("unknown key{rest}");
        }
        if key.is_empty() {
            key = "(top level)".to_string();
        }
        ProfileError::Invalid {
            source_name: source_name.to_string(),
            key,
            message,
            line: start.map(|start| line_column(text, start).0),
        }
    }
}

/// Bytes of blank space and comment lines at the start of `text`.
fn skip_comments(text: &str) -> usize {
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            pos += line.len();
        } else {
            return pos + (line.len() - trimmed.len());
        }
    }
    pos
}

fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// 1-based line and character column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
