//! Where a feature's id comes from when the source has no usable id field: an id
//! expression (`--id "COALESCE(FACILITYID, ALTID)"`) or ids generated from a prefix and
//! the source's feature number (`--id-prefix P-`).
//!
//! The expression language is the small part of SQL an analyst writes for this: field
//! names (bare, or in double quotes when they hold spaces), 'text' in single quotes,
//! `COALESCE(a, b, ...)` and `||` to join. It is parsed once against the source's
//! fields, so a misspelt field is an error naming the fields there are, before any
//! feature is read. Unlike SQL, a blank value counts as missing in `COALESCE` (a source
//! writes "no id" as an empty string as often as a null), and `||` with a missing part
//! is missing, as in SQL.

use std::fmt;

use crate::domain::{FieldType, Value};

/// How ids are made, when not read from one field.
#[derive(Debug, Clone, PartialEq)]
pub enum IdRule {
    /// Evaluate an expression over the source fields.
    Expr(IdExpr),
    /// `prefix` followed by the source feature's FID (stable for a file as long as its
    /// features keep their order).
    Generated {
        /// The text before the number.
        prefix: String,
    },
}

impl IdRule {
    /// The id of a source feature with these values (by source field index) and FID.
    pub fn eval(&self, values: &[Value], fid: u64) -> Value {
        match self {
            IdRule::Expr(e) => e.eval(values).map(Value::Text).unwrap_or(Value::Null),
            IdRule::Generated { prefix } => Value::Text(format!("{prefix}{fid}")),
        }
    }

    /// How the report says where the ids came from.
    pub fn describe(&self) -> String {
        match self {
            IdRule::Expr(e) => format!("the expression {e}"),
            IdRule::Generated { prefix } => {
                format!("generated: {prefix:?} followed by the source feature number")
            }
        }
    }
}

/// A parsed id expression.
#[derive(Debug, Clone, PartialEq)]
pub enum IdExpr {
    /// A source field, by index, with its name for display.
    Field(usize, String),
    /// A text literal.
    Text(String),
    /// The first part with a non-blank value.
    Coalesce(Vec<IdExpr>),
    /// The parts joined; missing when any part is.
    Concat(Vec<IdExpr>),
}

impl fmt::Display for IdExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |parts: &[IdExpr], sep: &str| {
            parts
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(sep)
        };
        match self {
            IdExpr::Field(_, n) if n.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                write!(f, "{n}")
            }
            IdExpr::Field(_, n) => write!(f, "\"{n}\""),
            IdExpr::Text(t) => write!(f, "'{}'", t.replace('\'', "''")),
            IdExpr::Coalesce(p) => write!(f, "COALESCE({})", join(p, ", ")),
            IdExpr::Concat(p) => write!(f, "{}", join(p, " || ")),
        }
    }
}

impl IdExpr {
    /// Parses `text` against the source's field names (matched without regard to case).
    pub fn parse(text: &str, fields: &[String]) -> Result<IdExpr, String> {
        let tokens = tokens(text)?;
        let mut p = Parser {
            tokens: &tokens,
            at: 0,
            fields,
        };
        let e = p.concat()?;
        match p.tokens.get(p.at) {
            None => Ok(e),
            Some(t) => Err(format!("unexpected {t} after {e}")),
        }
    }

    /// The id this expression gives, or None when it gives nothing usable.
    pub fn eval(&self, values: &[Value]) -> Option<String> {
        match self {
            IdExpr::Field(i, _) => match values.get(*i)?.clone().coerce(FieldType::Text) {
                Ok((Value::Text(s), _)) if !s.trim().is_empty() => Some(s.trim().to_string()),
                _ => None,
            },
            IdExpr::Text(t) => Some(t.clone()),
            IdExpr::Coalesce(parts) => parts.iter().find_map(|p| p.eval(values)),
            IdExpr::Concat(parts) => parts.iter().map(|p| p.eval(values)).collect(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Quoted(String),
    Text(String),
    Open,
    Close,
    Comma,
    Pipe,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Name(n) => write!(f, "{n}"),
            Token::Quoted(n) => write!(f, "\"{n}\""),
            Token::Text(t) => write!(f, "'{t}'"),
            Token::Open => write!(f, "'('"),
            Token::Close => write!(f, "')'"),
            Token::Comma => write!(f, "','"),
            Token::Pipe => write!(f, "'||'"),
        }
    }
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            ',' => out.push(Token::Comma),
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                out.push(Token::Pipe);
            }
            '\'' | '"' => {
                let mut s = String::new();
                loop {
                    match chars.next() {
                        // A doubled quote is the quote itself, as in SQL.
                        Some(q) if q == c && chars.peek() == Some(&c) => {
                            chars.next();
                            s.push(c);
                        }
                        Some(q) if q == c => break,
                        Some(q) => s.push(q),
                        None => return Err(format!("the text starting {c}{s} has no closing {c}")),
                    }
                }
                out.push(if c == '\'' {
                    Token::Text(s)
                } else {
                    Token::Quoted(s)
                });
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut s = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_alphanumeric() || n == '_' {
                        s.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Name(s));
            }
            c => {
                return Err(format!(
                    "{c:?} is not part of an id expression (field names, 'text', COALESCE(...) and || are)"
                ))
            }
        }
    }
    if out.is_empty() {
        return Err("the id expression is empty".into());
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    fields: &'a [String],
}

impl Parser<'_> {
    fn concat(&mut self) -> Result<IdExpr, String> {
        let mut parts = vec![self.term()?];
        while self.tokens.get(self.at) == Some(&Token::Pipe) {
            self.at += 1;
            parts.push(self.term()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            IdExpr::Concat(parts)
        })
    }

    fn term(&mut self) -> Result<IdExpr, String> {
        let t = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or("the id expression ends too soon")?;
        self.at += 1;
        match t {
            Token::Text(s) => Ok(IdExpr::Text(s)),
            Token::Name(n)
                if n.eq_ignore_ascii_case("coalesce")
                    && self.tokens.get(self.at) == Some(&Token::Open) =>
            {
                self.at += 1;
                let mut parts = vec![self.concat()?];
                loop {
                    match self.tokens.get(self.at) {
                        Some(Token::Comma) => {
                            self.at += 1;
                            parts.push(self.concat()?);
                        }
                        Some(Token::Close) => {
                            self.at += 1;
                            return Ok(IdExpr::Coalesce(parts));
                        }
                        Some(t) => return Err(format!("COALESCE: expected ',' or ')', not {t}")),
                        None => return Err("COALESCE( has no closing ')'".into()),
                    }
                }
            }
            Token::Name(n) | Token::Quoted(n) => {
                let i = self
                    .fields
                    .iter()
                    .position(|f| f.eq_ignore_ascii_case(&n))
                    .ok_or_else(|| {
                        format!(
                            "no field {n:?} in the source; its fields are: {}",
                            self.fields.join(", ")
                        )
                    })?;
                Ok(IdExpr::Field(i, self.fields[i].clone()))
            }
            t => Err(format!(
                "expected a field, 'text' or COALESCE(...), not {t}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Vec<String> {
        ["FACILITYID", "ALTID", "Sub Basin"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn coalesce_takes_the_first_value_that_is_not_blank() {
        let e = IdExpr::parse("COALESCE(FACILITYID, altid, 'none')", &fields()).unwrap();
        let v = |a: Value, b: Value| vec![a, b, Value::Null];
        assert_eq!(
            e.eval(&v(Value::Null, Value::Text("A-1".into()))),
            Some("A-1".into())
        );
        assert_eq!(
            e.eval(&v(Value::Text("  ".into()), Value::Int(7))),
            Some("7".into())
        );
        assert_eq!(e.eval(&v(Value::Null, Value::Null)), Some("none".into()));
        assert_eq!(e.to_string(), "COALESCE(FACILITYID, ALTID, 'none')");
    }

    #[test]
    fn concatenation_with_a_missing_part_is_missing() {
        let e = IdExpr::parse("\"Sub Basin\" || '-' || ALTID", &fields()).unwrap();
        let vals = vec![Value::Null, Value::Int(12), Value::Text("SB".into())];
        assert_eq!(e.eval(&vals), Some("SB-12".into()));
        let vals = vec![Value::Null, Value::Null, Value::Text("SB".into())];
        assert_eq!(e.eval(&vals), None);
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let e = IdExpr::parse("COALESCE(FACILITY, ALTID)", &fields()).unwrap_err();
        assert!(
            e.contains("no field \"FACILITY\"") && e.contains("ALTID"),
            "{e}"
        );
        let e = IdExpr::parse("COALESCE(ALTID", &fields()).unwrap_err();
        assert!(e.contains("closing"), "{e}");
        let e = IdExpr::parse("ALTID + 1", &fields()).unwrap_err();
        assert!(e.contains("'+'"), "{e}");
        let e = IdExpr::parse("'abc", &fields()).unwrap_err();
        assert!(e.contains("no closing"), "{e}");
    }

    #[test]
    fn generated_ids_are_the_prefix_and_the_feature_number() {
        let r = IdRule::Generated {
            prefix: "P-".into(),
        };
        assert_eq!(r.eval(&[], 41), Value::Text("P-41".into()));
    }
}
