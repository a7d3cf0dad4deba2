//! Checks on a deserialized profile beyond what its types enforce: positive numbers (each
//! in its range, see [`super::bounds`]), catalogue-shaped rule ids that the `[rules]`
//! table lists, no duplicate entries.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;

use super::issue::{fail, Check};
use super::land_use::{normalise_words, CodeRange};
use super::locate::key_segment;
use super::{CoverageEntry, DischargeCondition, Profile};
use crate::domain::discharge::DischargeKind;

/// Every check, in file order; the first failure is returned.
pub(super) fn profile(p: &Profile) -> Check {
    if !is_profile_id(&p.id) {
        fail(
            "id",
            format!(
                "{:?} is not a profile id: use lower-case letters, digits and hyphens",
                p.id
            ),
        )?;
    }
    text("name", &p.name)?;
    if !(p.state.len() == 2 && p.state.bytes().all(|b| b.is_ascii_uppercase())) {
        fail(
            "state",
            format!("{:?} is not a two-letter state code", p.state),
        )?;
    }
    if !is_segment(&p.rule_prefix, false) {
        fail(
            "rule_prefix",
            format!(
                "{:?} is not a rule id prefix such as \"northcastle\"",
                p.rule_prefix
            ),
        )?;
    }
    text("catalogue_version", &p.catalogue_version)?;
    text("law.title", &p.law.title)?;
    let seed = &p.law.seed;
    if seed.trim().is_empty() || seed.contains(['/', '\\']) || seed == "." || seed == ".." {
        fail("law.seed", format!("{seed:?} is not a file name"))?;
    }
    text("law.history", &p.law.history)?;
    optional_text("law.administrator", &p.law.administrator)?;
    if p.crs_hint.epsg == 0 {
        fail("crs_hint.epsg", "the EPSG code must be positive")?;
    }
    text("crs_hint.name", &p.crs_hint.name)?;
    rules_table(p)?;
    for (name, entry) in p.coverage.iter() {
        coverage(p, &format!("coverage.{name}"), entry)?;
    }
    for (name, t) in p.thresholds.iter() {
        let key = format!("thresholds.{name}");
        positive(&format!("{key}.value"), t.value)?;
        rule_ref(p, &format!("{key}.rule"), &t.rule)?;
        text(&format!("{key}.citation"), &t.citation)?;
        optional_text(&format!("{key}.quote"), &t.quote)?;
    }
    exempt_discharges(p)?;
    allowed_discharges(p)?;
    super::idde::validate(&p.idde)?;
    land_use(p)?;
    for (name, t) in p.tolerances.iter() {
        positive(&format!("tolerances.{name}.value"), t.value)?;
    }
    inspections(p)?;
    super::schedules::validate(&p.schedules)?;
    super::calendar::validate(&p.calendar)?;
    assumptions(p)?;
    super::bounds::profile(p)?;
    family(p)
}

/// The family's roles: each one the family's code decides is mapped, to a listed rule.
fn family(p: &Profile) -> Check {
    use super::IllicitDischargeFamily;
    let has_illicit = p.family.illicit_discharge != IllicitDischargeFamily::None;
    if has_illicit != p.coverage.illicit_connections.present {
        fail(
            "family.illicit_discharge",
            format!(
                "{:?} disagrees with coverage.illicit_connections.present = {}",
                p.family.illicit_discharge.as_str(),
                p.coverage.illicit_connections.present
            ),
        )?;
    }
    for amb in p.family.required_readings() {
        if !p.assumptions.contains_key(amb) {
            fail(
                format!("assumptions.{amb}"),
                format!(
                    "the {} family reads this ambiguity: give its setting",
                    p.family.land_development.as_str()
                ),
            )?;
        }
    }
    for check in super::family::reading_checks() {
        let Some(a) = p.assumptions.get(check.amb) else {
            continue;
        };
        let names = (check.names)();
        match a.setting.as_str() {
            Some(word) if (check.known)(word) => {}
            Some(word) => fail(
                format!("assumptions.{}.setting", check.amb),
                format!(
                    "unknown reading {word:?}, expected {}",
                    super::one_of(&names)
                ),
            )?,
            None => fail(
                format!("assumptions.{}.setting", check.amb),
                format!("the reading must be one of {}", super::one_of(&names)),
            )?,
        }
    }
    if let Some(a) = p.assumptions.get(super::ExemptionCutoff::AMB) {
        if let Err(why) = super::ExemptionCutoff::from_setting(&a.setting) {
            fail(
                format!("assumptions.{}.setting", super::ExemptionCutoff::AMB),
                why,
            )?;
        }
    }
    if let Some(a) = p.assumptions.get(super::ListCycle::AMB) {
        if let Err(why) = super::ListCycle::from_setting(&a.setting) {
            fail(
                format!("assumptions.{}.setting", super::ListCycle::AMB),
                why,
            )?;
        }
    }
    for check in super::readings::table_checks() {
        if let Some(a) = p.assumptions.get(check.amb) {
            if let Err(why) = (check.check)(&a.setting, p) {
                fail(format!("assumptions.{}.setting", check.amb), why)?;
            }
        }
    }
    for (role, id) in &p.roles {
        rule_ref(p, &format!("roles.{role}"), id)?;
    }
    for role in p.family.required_roles() {
        if !p.roles.contains_key(&role) {
            fail(
                format!("roles.{role}"),
                format!(
                    "the {} family decides this role: name the rule of this town that plays it",
                    match role.decided_in().first() {
                        Some(m) if m.contains("illicit") || m.contains("idde") => {
                            p.family.illicit_discharge.as_str()
                        }
                        _ => p.family.land_development.as_str(),
                    }
                ),
            )?;
        }
    }
    wording(p)?;
    super::wording::notice_check(p)
}

/// The words the family's text quotes: each one its code uses is given, as plain text.
fn wording(p: &Profile) -> Check {
    use super::LandDevelopmentFamily;
    if p.family.land_development == LandDevelopmentFamily::NyGeneralPermit {
        let w = &p.wording;
        for (key, value) in [
            ("law", &w.law),
            ("town", &w.town),
            ("section_prefix", &w.section_prefix),
        ] {
            if value.trim().is_empty() {
                fail(
                    format!("wording.{key}"),
                    "the ny-general-permit family quotes this in its answers: give the town's own text",
                )?;
            }
        }
        return Ok(());
    }
    if p.family.land_development == LandDevelopmentFamily::IllicitDischargeOnly {
        if p.wording.town.trim().is_empty() {
            fail(
                "wording.town",
                "the illicit-discharge-only family quotes the town's name in its answers",
            )?;
        }
        if p.wording
            .section(super::Role::PremisesAccess)
            .trim()
            .is_empty()
        {
            fail(
                "wording.sections.premises_access",
                "the illicit-discharge-only family cites this section in its answers: give the town's own",
            )?;
        }
        return Ok(());
    }
    if p.family.land_development != LandDevelopmentFamily::NyConditions {
        return Ok(());
    }
    let w = &p.wording;
    for (key, value) in [
        ("law", &w.law),
        ("law_short", &w.law_short),
        ("definitions", &w.definitions),
        ("county_clerk", &w.county_clerk),
        ("town_counsel", &w.town_counsel),
        ("easement_plan_item", &w.easement_plan_item),
        ("agreement_plan_item", &w.agreement_plan_item),
    ] {
        if value.trim().is_empty() {
            fail(
                format!("wording.{key}"),
                "the ny-conditions family quotes this in its answers: give the town's own text",
            )?;
        }
    }
    for role in super::NY_CONDITIONS_SECTIONS {
        match w.sections.get(role) {
            Some(s) if !s.trim().is_empty() => {}
            _ => fail(
                format!("wording.sections.{role}"),
                "the ny-conditions family cites this section in its answers: give the town's own",
            )?,
        }
    }
    Ok(())
}

/// Lower-case letters, digits and inner hyphens: a profile id that is also a file stem.
pub(super) fn is_profile_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A segment of a rule id: lower-case letters, digits and underscores, starting with a
/// letter (or, after the first segment, a digit: `northcastle.inspection.48h_notice`).
fn is_segment(segment: &str, digit_start: bool) -> bool {
    let bytes = segment.as_bytes();
    !bytes.is_empty()
        && (bytes[0].is_ascii_lowercase() || (digit_start && bytes[0].is_ascii_digit()))
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
}

/// Whether `id` looks like a catalogue rule id: two or more dotted segments.
pub(super) fn is_rule_id(id: &str) -> bool {
    let mut segments = id.split('.');
    segments
        .next()
        .is_some_and(|first| is_segment(first, false))
        && segments.clone().next().is_some()
        && segments.all(|s| is_segment(s, true))
}

fn rule_id_shape(key: &str, id: &str) -> Check {
    if is_rule_id(id) {
        Ok(())
    } else {
        fail(
            key,
            format!(
                "{id:?} does not look like a catalogue rule id \
                 (lower-case dotted segments such as \"northcastle.lda.applicability\")"
            ),
        )
    }
}

fn rules_table(p: &Profile) -> Check {
    if p.rules.is_empty() {
        fail("rules", "the profile lists no rules")?;
    }
    let own = format!("{}.", p.rule_prefix);
    for (id, rule) in &p.rules {
        let key = format!("rules.{}", key_segment(id));
        rule_id_shape(&key, id)?;
        if !id.starts_with(&own) && !id.starts_with("shared.") {
            fail(
                &key,
                format!("rule {id:?} belongs to another jurisdiction: ids here start with \"{own}\" or \"shared.\""),
            )?;
        }
        text(&format!("{key}.title"), &rule.title)?;
        text(&format!("{key}.citation"), &rule.citation)?;
    }
    Ok(())
}

/// A rule id used elsewhere in the profile: well formed and listed under `[rules]`.
fn rule_ref(p: &Profile, key: &str, id: &str) -> Check {
    rule_id_shape(key, id)?;
    if !p.rules.contains_key(id) {
        fail(key, format!("rule {id:?} is not listed under [rules]"))?;
    }
    Ok(())
}

fn coverage(p: &Profile, key: &str, entry: &CoverageEntry) -> Check {
    if let Some(rule) = &entry.rule {
        rule_ref(p, &format!("{key}.rule"), rule)?;
        if entry.citation.is_none() {
            fail(format!("{key}.citation"), "a rule needs its citation")?;
        }
    } else if entry.present {
        fail(format!("{key}.rule"), "name the rule when present = true")?;
    }
    optional_text(&format!("{key}.citation"), &entry.citation)?;
    optional_text(
        &format!("{key}.approving_authority"),
        &entry.approving_authority,
    )?;
    optional_text(&format!("{key}.note"), &entry.note)
}

fn exempt_discharges(p: &Profile) -> Check {
    let mut seen: HashMap<DischargeKind, usize> = HashMap::new();
    for (i, entry) in p.exempt_discharges.iter().enumerate() {
        let key = format!("exempt_discharges[{i}]");
        if entry.kind.is_stormwater() || entry.kind == DischargeKind::Unknown {
            fail(
                format!("{key}.kind"),
                format!(
                    "\"{}\" cannot be an exempt non-stormwater discharge",
                    entry.kind
                ),
            )?;
        }
        if let Some(first) = seen.insert(entry.kind, i) {
            fail(
                format!("{key}.kind"),
                format!(
                    "duplicate discharge kind \"{}\" (also exempt_discharges[{first}])",
                    entry.kind
                ),
            )?;
        }
        text(&format!("{key}.text"), &entry.text)?;
        rule_ref(p, &format!("{key}.rule"), &entry.rule)?;
        text(&format!("{key}.citation"), &entry.citation)?;
        unique(&format!("{key}.conditions"), &entry.conditions, "condition")?;
        optional_text(&format!("{key}.note"), &entry.note)?;
    }
    Ok(())
}

fn allowed_discharges(p: &Profile) -> Check {
    let routes: Vec<_> = p.allowed_discharges.iter().map(|a| a.route).collect();
    for (i, entry) in p.allowed_discharges.iter().enumerate() {
        let key = format!("allowed_discharges[{i}]");
        if let Some(first) = routes[..i].iter().position(|r| *r == entry.route) {
            fail(
                format!("{key}.route"),
                format!(
                    "duplicate route \"{}\" (also allowed_discharges[{first}])",
                    entry.route
                ),
            )?;
        }
        text(&format!("{key}.authority"), &entry.authority)?;
        text(&format!("{key}.text"), &entry.text)?;
        rule_ref(p, &format!("{key}.rule"), &entry.rule)?;
        text(&format!("{key}.citation"), &entry.citation)?;
        unique::<DischargeCondition>(&format!("{key}.conditions"), &entry.conditions, "condition")?;
    }
    Ok(())
}

fn land_use(p: &Profile) -> Check {
    let config = &p.land_use;
    rule_ref(p, "land_use.rule", &config.rule)?;
    text("land_use.citation", &config.citation)?;
    text("land_use.basis", &config.basis)?;
    if let Some(n) = config.code_digits {
        if !(1..=9).contains(&n) {
            fail(
                "land_use.code_digits",
                format!("must be between 1 and 9, got {n}"),
            )?;
        }
    }
    let mut codes: Vec<(CodeRange, String, &str)> = Vec::new();
    let mut words: HashMap<String, String> = HashMap::new();
    for (name, list, _) in config.lists() {
        for (i, code) in list.codes.iter().enumerate() {
            let key = format!("land_use.{name}.codes[{i}]");
            let Some(range) = CodeRange::parse(code) else {
                return fail(
                    key,
                    format!("bad code {code:?}, expected a code such as \"410\" or a range such as \"400-499\""),
                );
            };
            for (other, other_key, other_name) in &codes {
                if *other == range {
                    fail(&key, format!("duplicate code {code:?} (also {other_key})"))?;
                }
                if *other_name != name && other.width() == range.width() && other.overlaps(range) {
                    fail(
                        &key,
                        format!("code {code:?} overlaps {other_key} and neither is more specific"),
                    )?;
                }
            }
            codes.push((range, key, name));
        }
        for (i, word) in list.words.iter().enumerate() {
            let key = format!("land_use.{name}.words[{i}]");
            let normalised = normalise_words(word);
            if normalised.is_empty() {
                fail(&key, "a word needs letters or digits")?;
            }
            if let Some(other_key) = words.insert(normalised, key.clone()) {
                fail(&key, format!("duplicate word {word:?} (also {other_key})"))?;
            }
        }
    }
    Ok(())
}

fn inspections(p: &Profile) -> Check {
    for (name, interval) in &p.inspections {
        let key = format!("inspections.{}", key_segment(name));
        if !is_segment(name, false) {
            fail(&key, format!("{name:?} is not a snake_case name"))?;
        }
        match (interval.every, interval.within) {
            (Some(_), Some(_)) => fail(&key, "set either `every` or `within`, not both")?,
            (None, None) => fail(
                &key,
                "set `every` (periodic) or `within` (a deadline after an event)",
            )?,
            (Some(0), None) => fail(format!("{key}.every"), "must be positive")?,
            (None, Some(0)) => fail(format!("{key}.within"), "must be positive")?,
            _ => {}
        }
        if interval.within.is_some() && interval.after.is_none() {
            fail(
                format!("{key}.after"),
                "a `within` deadline needs the event it runs from",
            )?;
        }
        if let Some(inches) = interval.min_rainfall_inches {
            positive(&format!("{key}.min_rainfall_inches"), inches)?;
        }
        optional_text(&format!("{key}.after"), &interval.after)?;
        optional_text(&format!("{key}.applies_when"), &interval.applies_when)?;
        rule_ref(p, &format!("{key}.rule"), &interval.rule)?;
        text(&format!("{key}.citation"), &interval.citation)?;
        optional_text(&format!("{key}.quote"), &interval.quote)?;
    }
    Ok(())
}

fn assumptions(p: &Profile) -> Check {
    for (id, assumption) in &p.assumptions {
        let key = format!("assumptions.{}", key_segment(id));
        let digits = id.strip_prefix("AMB-").unwrap_or("");
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            fail(
                &key,
                format!("{id:?} is not an ambiguity id such as \"AMB-01\""),
            )?;
        }
        if assumption.setting.is_blank() {
            fail(format!("{key}.setting"), "the setting is empty")?;
        }
        text(&format!("{key}.text"), &assumption.text)?;
        if assumption.text.contains('\n') {
            fail(
                format!("{key}.text"),
                "keep the assumption text to one line",
            )?;
        }
    }
    Ok(())
}

fn text(key: &str, value: &str) -> Check {
    if value.trim().is_empty() {
        fail(key, "must not be empty")?;
    }
    Ok(())
}

fn optional_text(key: &str, value: &Option<String>) -> Check {
    value.as_deref().map_or(Ok(()), |v| text(key, v))
}

fn positive(key: &str, value: f64) -> Check {
    if !(value.is_finite() && value > 0.0) {
        fail(key, format!("must be a positive number, got {value}"))?;
    }
    Ok(())
}

fn unique<T: Eq + Hash + Display>(key: &str, items: &[T], what: &str) -> Check {
    let mut seen: HashMap<&T, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        if let Some(first) = seen.insert(item, i) {
            fail(
                format!("{key}[{i}]"),
                format!("duplicate {what} \"{item}\" (also {key}[{first}])"),
            )?;
        }
    }
    Ok(())
}
