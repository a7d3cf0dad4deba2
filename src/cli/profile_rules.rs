//! `ms4 profile rules`: every rule id of the registry's profile with the role it plays in
//! its family's code, its citation, and the code that decides it.

use super::output;
use super::Format;
use crate::rules::{Profile, Role};

/// One rule as listed.
struct Listed<'a> {
    rule: &'a str,
    roles: Vec<Role>,
    citation: &'a str,
    title: &'a str,
}

fn listed(profile: &Profile) -> Vec<Listed<'_>> {
    profile
        .rules
        .iter()
        .map(|(id, r)| Listed {
            rule: id,
            roles: profile
                .roles
                .iter()
                .filter(|(_, rid)| *rid == id)
                .map(|(role, _)| *role)
                .collect(),
            citation: &r.citation,
            title: &r.title,
        })
        .collect()
}

/// Prints the profile's rules as a table or JSON. A rule no role names is cited by the
/// profile's data (a threshold, an exemption, a coverage entry) and read by the code
/// that reads that data.
pub(super) fn print(profile: &Profile, format: Format) -> anyhow::Result<()> {
    let rules = listed(profile);
    match format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = rules
                .iter()
                .map(|l| {
                    serde_json::json!({
                        "rule": l.rule,
                        "roles": l.roles.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
                        "citation": l.citation,
                        "title": l.title,
                        "decided_in": decided_in(profile, &l.roles),
                    })
                })
                .collect();
            let v = serde_json::json!({
                "profile": profile.id,
                "family": profile.family,
                "rules": rows,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        Format::Table => {
            println!(
                "{}: land development family {}, illicit discharge family {}",
                profile.id, profile.family.land_development, profile.family.illicit_discharge
            );
            let table: Vec<Vec<String>> = rules
                .iter()
                .map(|l| {
                    let roles: Vec<&str> = l.roles.iter().map(|r| r.as_str()).collect();
                    vec![
                        l.rule.to_string(),
                        if roles.is_empty() {
                            "-".into()
                        } else {
                            roles.join(", ")
                        },
                        l.citation.to_string(),
                        decided_in(profile, &l.roles).join(", "),
                    ]
                })
                .collect();
            print!(
                "{}",
                output::table(&["rule", "role", "citation", "decided in"], &table)
            );
        }
    }
    Ok(())
}

/// The code that decides these roles for this profile: of the determination modules,
/// only its family's.
fn decided_in(profile: &Profile, roles: &[Role]) -> Vec<&'static str> {
    let own = profile.family.land_development.module();
    let mut out: Vec<&'static str> = Vec::new();
    for r in roles {
        for m in r.decided_in() {
            let other_family = m.starts_with("ms4::rules::determine::") && *m != own;
            if !other_family && !out.contains(m) {
                out.push(m);
            }
        }
    }
    if out.is_empty() {
        out.push("profile data (cited by the code that reads it)");
    }
    out
}
