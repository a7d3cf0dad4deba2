//! Closed vocabularies: the words a record takes from a fixed list (an action's kind, a
//! case's status, an inspection's kind). Each is an enum, so the code matches on it and
//! the compiler finds every use; on the wire and in the store it is the word itself,
//! and a word not in the list is refused with the list, never taken as another.

/// Defines a closed vocabulary: an enum whose variants are written as the given words
/// (in JSON, TOML, the store and messages), with `ALL` in order, `as_str`, `FromStr`
/// (refusing any other word, with the list), serde and a JSON Schema `enum` of the words.
/// `$what` names the vocabulary in a refusal: `"x" is not $what; expected one of ...`.
macro_rules! words {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every word, in order.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )+ ];

            /// The word.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $word, )+ }
            }

            /// The words, comma-separated, for messages and help.
            pub fn list() -> String {
                Self::ALL.iter().map(|w| w.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $( $word => Ok($name::$variant), )+
                    _ => Err(format!(
                        "{s:?} is not {}; expected one of {}",
                        $what,
                        Self::list()
                    )),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).to_string()
            }

            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
                schemars::schema::SchemaObject {
                    instance_type: Some(schemars::schema::InstanceType::String.into()),
                    enum_values: Some(Self::ALL.iter().map(|w| w.as_str().into()).collect()),
                    ..Default::default()
                }
                .into()
            }
        }
    };
}

pub(crate) use words;

#[cfg(test)]
mod tests {
    use super::super::enforcement::{ActionKind, CaseStatus};
    use std::str::FromStr;

    #[test]
    fn a_word_round_trips_and_another_is_refused_with_the_list() {
        for k in ActionKind::ALL {
            assert_eq!(ActionKind::from_str(k.as_str()), Ok(*k));
            let json = serde_json::to_string(k).unwrap();
            assert_eq!(serde_json::from_str::<ActionKind>(&json).unwrap(), *k);
        }
        let e = CaseStatus::from_str("Open").unwrap_err();
        assert_eq!(
            e,
            "\"Open\" is not a case status; expected one of open, closed"
        );
        let e = serde_json::from_str::<CaseStatus>("\"reopened\"").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("\"reopened\" is not a case status"),
            "{e}"
        );
        assert!(CaseStatus::Open == "open" && CaseStatus::Closed != "open");
    }
}
