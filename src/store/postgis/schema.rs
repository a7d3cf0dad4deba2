//! A registry per schema: one PostgreSQL database can hold many registries (a coalition's
//! members), each in a schema of its own named by the store URL
//! (`postgres://…/db?schema=north_castle`, or libpq's
//! `options=-c search_path=north_castle`).
//!
//! The name is taken out of the URL before sqlx sees it, and every pooled connection then
//! runs with `search_path = <schema>, public`: the registry's tables, migrations
//! (`_sqlx_migrations`), triggers and functions live in its schema, PostGIS stays in
//! `public` where every member finds it. Only a plain lower-case identifier is accepted,
//! so the name can stand in SQL unquoted-equivalent and in a NOTIFY channel's name; a
//! name that would need quoting (a hyphen, a capital, a quote) is refused, not quoted, so
//! that `north-castle` and `North_Castle` never turn into a schema nobody can find.

use url::Url;

/// The longest schema name accepted: the change channel (`ms4_changes.<schema>`) must stay
/// within PostgreSQL's 63-byte identifiers.
pub const MAX_SCHEMA_CHARS: usize = 50;

/// A checked schema name: `[a-z_][a-z0-9_]*`, not `pg_…`, at most [`MAX_SCHEMA_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema(String);

impl Schema {
    /// Checks a name; the error says what is wrong with it.
    pub fn new(name: &str) -> Result<Schema, String> {
        let ok_start = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
        if name.is_empty() {
            return Err("the schema name is empty".into());
        }
        if name.len() > MAX_SCHEMA_CHARS {
            return Err(format!(
                "{name:?} is longer than {MAX_SCHEMA_CHARS} characters"
            ));
        }
        if !ok_start
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            return Err(format!(
                "{name:?} is not a plain identifier: use lower-case letters, digits and _ (north_castle), starting with a letter or _"
            ));
        }
        if name.starts_with("pg_") || name == "information_schema" {
            return Err(format!("{name:?} is a name PostgreSQL keeps for itself"));
        }
        Ok(Schema(name.to_string()))
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The name quoted as an SQL identifier (it needs no quoting, but says so).
    pub fn quoted(&self) -> String {
        format!("\"{}\"", self.0)
    }

    /// The `search_path` every connection of the registry runs with.
    pub fn search_path(&self) -> String {
        format!("{}, public", self.quoted())
    }

    /// The NOTIFY channel the registry's change numbers are announced on, so one
    /// registry's write does not wake the servers of the others.
    pub fn channel(&self) -> String {
        format!("ms4_changes.{}", self.0)
    }
}

/// A store URL split: the URL sqlx connects with, and the schema it named, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaUrl {
    /// The URL without `schema` (and without the `search_path` of `options`).
    pub connect: String,
    /// The schema, when the URL named one.
    pub schema: Option<Schema>,
}

/// Takes the schema out of a store URL: `?schema=NAME`, or `options=-c search_path=NAME`
/// (its first entry; other `-c` settings in `options` are kept). Naming two different
/// schemas, or a name that is not a plain identifier, is refused with the reason.
pub fn split(url: &str) -> Result<SchemaUrl, String> {
    let Ok(mut u) = Url::parse(url) else {
        // Not for this module to judge: sqlx says what is wrong with it.
        return Ok(SchemaUrl {
            connect: url.to_string(),
            schema: None,
        });
    };
    let mut named: Vec<String> = Vec::new();
    let mut kept: Vec<(String, String)> = Vec::new();
    for (k, v) in u.query_pairs() {
        match k.as_ref() {
            "schema" => named.push(v.into_owned()),
            "options" => {
                let (path, rest) = search_path_of_options(&v);
                named.extend(path);
                if !rest.trim().is_empty() {
                    kept.push(("options".into(), rest));
                }
            }
            _ => kept.push((k.into_owned(), v.into_owned())),
        }
    }
    named.dedup();
    let schema = match named.as_slice() {
        // Nothing of ours in it: the URL goes to sqlx exactly as given.
        [] => {
            return Ok(SchemaUrl {
                connect: url.to_string(),
                schema: None,
            })
        }
        [one] => Some(Schema::new(one).map_err(|e| format!("schema: {e}"))?),
        _ => {
            return Err(format!(
                "schema: the URL names more than one schema ({})",
                named.join(", ")
            ))
        }
    };
    if kept.is_empty() {
        u.set_query(None);
    } else {
        u.query_pairs_mut().clear().extend_pairs(kept);
    }
    Ok(SchemaUrl {
        connect: u.to_string(),
        schema,
    })
}

/// The first schema of a `-c search_path=a,b` in libpq's `options`, and the options
/// without it. `public` alone (or first) names no schema of a registry's own.
fn search_path_of_options(options: &str) -> (Option<String>, String) {
    let words: Vec<&str> = options.split_whitespace().collect();
    let mut rest = Vec::new();
    let mut found = None;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let setting = if w == "-c" {
            i += 1;
            words.get(i).copied()
        } else {
            w.strip_prefix("-c")
                .or_else(|| w.strip_prefix("--"))
                .filter(|s| !s.is_empty())
        };
        match setting.and_then(|s| s.strip_prefix("search_path=")) {
            Some(path) => {
                let first = path
                    .split(',')
                    .map(|s| s.trim().trim_matches('"'))
                    .find(|s| !s.is_empty() && *s != "public");
                found = first.map(str::to_string);
            }
            None => {
                if w == "-c" {
                    rest.push("-c");
                    rest.extend(setting);
                } else {
                    rest.push(w);
                }
            }
        }
        i += 1;
    }
    (found, rest.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(
        "postgres://ms4@db/coalition?schema=north_castle",
        "postgres://ms4@db/coalition",
        Some("north_castle")
    )]
    #[case(
        "postgres://ms4@db/coalition?sslmode=disable&schema=carmel",
        "postgres://ms4@db/coalition?sslmode=disable",
        Some("carmel")
    )]
    #[case(
        "postgres://ms4@db/coalition?options=-c%20search_path%3Dcarmel%2Cpublic",
        "postgres://ms4@db/coalition",
        Some("carmel")
    )]
    #[case("postgres://ms4@db/coalition?options=-c%20search_path%3Dcarmel%20-c%20statement_timeout%3D5s", "postgres://ms4@db/coalition?options=-c+statement_timeout%3D5s", Some("carmel"))]
    #[case(
        "postgres://ms4@db/coalition?options=-csearch_path%3Dcarmel",
        "postgres://ms4@db/coalition",
        Some("carmel")
    )]
    #[case("postgres://ms4@db/town", "postgres://ms4@db/town", None)]
    #[case(
        "postgres://ms4@db/town?sslmode=require",
        "postgres://ms4@db/town?sslmode=require",
        None
    )]
    fn the_schema_is_taken_out_of_the_url(
        #[case] url: &str,
        #[case] connect: &str,
        #[case] schema: Option<&str>,
    ) {
        let s = split(url).unwrap();
        assert_eq!(s.connect, connect);
        assert_eq!(s.schema.as_ref().map(Schema::name), schema);
    }

    #[rstest]
    #[case("north-castle", "not a plain identifier")]
    #[case("North_Castle", "not a plain identifier")]
    #[case("x\";DROP TABLE ms4_meta;--", "not a plain identifier")]
    #[case("9town", "not a plain identifier")]
    #[case("pg_catalog", "PostgreSQL keeps")]
    #[case("information_schema", "PostgreSQL keeps")]
    #[case("", "empty")]
    #[case(
        "a_very_long_name_for_a_town_that_goes_on_and_on_past_fifty",
        "longer than 50"
    )]
    fn a_schema_that_is_not_a_plain_identifier_is_refused(#[case] name: &str, #[case] why: &str) {
        let url = format!("postgres://ms4@db/c?schema={}", urlencode(name));
        let e = split(&url).unwrap_err();
        assert!(e.starts_with("schema: "), "{e}");
        assert!(e.contains(why), "{e}");
    }

    #[test]
    fn two_different_schemas_are_refused() {
        let e = split("postgres://ms4@db/c?schema=a&options=-c%20search_path%3Db").unwrap_err();
        assert!(e.contains("more than one schema (a, b)"), "{e}");
        // The same one twice is one.
        let s = split("postgres://ms4@db/c?schema=a&options=-c%20search_path%3Da").unwrap();
        assert_eq!(s.schema.unwrap().name(), "a");
    }

    #[test]
    fn the_channel_and_search_path_name_the_schema() {
        let s = Schema::new("north_castle").unwrap();
        assert_eq!(s.search_path(), "\"north_castle\", public");
        assert_eq!(s.channel(), "ms4_changes.north_castle");
        let long = Schema::new(&"a".repeat(MAX_SCHEMA_CHARS)).unwrap();
        assert!(long.channel().len() <= 63);
    }

    fn urlencode(s: &str) -> String {
        url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
    }
}
