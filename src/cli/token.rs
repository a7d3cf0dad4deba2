//! `ms4 token`: create, list and revoke API tokens. Run on the registry's own machine by
//! whoever can open the store, which is what makes it the administrator's tool.

use anyhow::{bail, Context};
use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Subcommand};

use super::output;
use super::Format;
use crate::auth::{self, NewToken, Role};
use crate::import::default_actor;

/// Arguments of `ms4 token`.
#[derive(Debug, Args)]
pub struct TokenArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: TokenAction,
}

/// Token actions.
#[derive(Debug, Subcommand)]
pub enum TokenAction {
    /// Create a token and print it (it is shown only this once).
    Create {
        /// analyst (imports and edits), inspector (inspections), planner (reads) or admin.
        #[arg(long)]
        role: String,
        /// Who will hold it; every write made with it is audited under this name.
        #[arg(long)]
        subject: String,
        /// When it stops working: a date (2027-06-30, end of that day UTC), an RFC 3339
        /// time, or a duration from now such as 90d or 12h.
        #[arg(long)]
        expires: Option<String>,
        /// Print JSON (id, token, role, subject, expiry) instead of the bare token.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// List tokens (never the tokens themselves).
    List {
        /// How to print.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Revoke a token by its id (from `ms4 token list`).
    Revoke {
        /// The token's id.
        id: i64,
    },
}

/// Reads `--expires`.
fn parse_expiry(s: &str, now: DateTime<Utc>) -> anyhow::Result<DateTime<Utc>> {
    let s = s.trim();
    if let Some(n) = s.strip_suffix('d').and_then(|n| n.parse::<i64>().ok()) {
        return Ok(now + chrono::Duration::days(n));
    }
    if let Some(n) = s.strip_suffix('h').and_then(|n| n.parse::<i64>().ok()) {
        return Ok(now + chrono::Duration::hours(n));
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let end = d.and_hms_opt(23, 59, 59).expect("a valid time of day");
        return Ok(end.and_utc());
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    bail!("--expires: {s:?} is not a date (2027-06-30), an RFC 3339 time or a duration (90d, 12h)")
}

pub(super) async fn run(store_url: &str, a: TokenArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let actor = default_actor();
    match a.action {
        TokenAction::Create {
            role,
            subject,
            expires,
            format,
        } => {
            let role: Role = role.parse().context("--role")?;
            let subject = auth::check_name(&subject)
                .map_err(|m| anyhow::anyhow!("--subject: {m}"))?
                .to_string();
            let now = Utc::now();
            let expires_at = expires
                .as_deref()
                .map(|e| parse_expiry(e, now))
                .transpose()?;
            if expires_at.is_some_and(|e| e <= now) {
                bail!("--expires: {} is already past", expires.unwrap_or_default());
            }
            let token = auth::generate();
            let id = store
                .create_token(
                    &NewToken {
                        hash: auth::hash(&token),
                        role,
                        subject: subject.trim().to_string(),
                        expires_at,
                    },
                    &actor,
                )
                .await?;
            match format {
                Format::Table => println!("{token}"),
                Format::Json => println!(
                    "{}",
                    serde_json::json!({
                        "token_id": id, "token": token, "role": role,
                        "subject": subject.trim(), "expires_at": expires_at,
                    })
                ),
            }
            eprintln!(
                "token {id} for {} ({role}); it is shown only once",
                subject.trim()
            );
        }
        TokenAction::List { format } => {
            let tokens = store.tokens().await?;
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&tokens)?),
                Format::Table => {
                    let now = Utc::now();
                    let rows: Vec<Vec<String>> = tokens
                        .iter()
                        .map(|t| {
                            vec![
                                t.token_id.to_string(),
                                t.role.to_string(),
                                t.subject.clone(),
                                t.created_at.format("%Y-%m-%d %H:%M").to_string(),
                                t.expires_at
                                    .map(|e| e.format("%Y-%m-%d %H:%M").to_string())
                                    .unwrap_or_else(|| "never".into()),
                                t.unusable(now).unwrap_or("valid").to_string(),
                            ]
                        })
                        .collect();
                    print!(
                        "{}",
                        output::table(
                            &["id", "role", "subject", "created", "expires", "state"],
                            &rows
                        )
                    );
                }
            }
        }
        TokenAction::Revoke { id } => {
            if !store.revoke_token(id, &actor).await? {
                bail!("token {id}: no such token, or it was revoked already");
            }
            println!("token {id} revoked");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_reads_dates_times_and_durations() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            parse_expiry("90d", now).unwrap(),
            now + chrono::Duration::days(90)
        );
        assert_eq!(
            parse_expiry("12h", now).unwrap(),
            now + chrono::Duration::hours(12)
        );
        assert_eq!(
            parse_expiry("2026-06-30", now).unwrap().to_rfc3339(),
            "2026-06-30T23:59:59+00:00"
        );
        assert!(parse_expiry("soon", now)
            .unwrap_err()
            .to_string()
            .contains("--expires"));
    }
}
