use super::builtin::BUILTIN;
use super::*;

mod lookups;
mod ranges;
mod readings;

fn builtin(id: &str) -> Profile {
    Profile::builtin(id).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_builtin_profile_loads() {
    assert_eq!(Profile::builtin_ids().len(), BUILTIN.len());
    for (i, id) in Profile::builtin_ids().iter().enumerate() {
        assert_eq!(BUILTIN[i].0, *id);
        let profile = builtin(id);
        assert_eq!(profile.id, *id);
        assert!(!profile.rules.is_empty(), "{id}");
        assert!(profile.tolerances.snap_tolerance.value > 0.0, "{id}");
    }
}

#[test]
fn builtin_profiles_load_from_the_data_folder_too() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/jurisdictions");
    for id in Profile::builtin_ids() {
        assert_eq!(Profile::load(id, &dir).unwrap(), builtin(id));
    }
}

#[test]
fn unknown_and_malformed_ids_are_errors() {
    let err = Profile::builtin("gotham-ny").unwrap_err();
    assert!(err.to_string().contains("north-castle-ny"), "{err}");
    let err = Profile::load("../etc/passwd", ".").unwrap_err();
    assert!(matches!(err, ProfileError::BadId { .. }), "{err}");
    let err = Profile::load("no-such-town", ".").unwrap_err();
    assert!(matches!(err, ProfileError::Read { .. }), "{err}");
}

/// Replace the first occurrence of `from` in the Carmel profile.
fn carmel_with(from: &str, to: &str) -> String {
    let text = BUILTIN[1].1;
    assert!(text.contains(from), "fixture text not found: {from:?}");
    text.replacen(from, to, 1)
}

#[test]
// A table of bad profiles, one a row: split up, it would no longer read as one table.
#[allow(clippy::too_many_lines)]
fn bad_profiles_name_file_and_key() {
    let lda = "[thresholds.land_development_activity]\nvalue = 5000\nunit = \"sqft\"";
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "bad unit",
            carmel_with(lda, "[thresholds.land_development_activity]\nvalue = 5000\nunit = \"sqm\""),
            "thresholds.land_development_activity.unit",
            "unknown unit \"sqm\", expected sqft or acre",
        ),
        (
            "unknown key",
            carmel_with(lda, &format!("{lda}\nvalu = 5")),
            "thresholds.land_development_activity.valu",
            "unknown key `valu`",
        ),
        (
            "negative threshold",
            carmel_with(lda, "[thresholds.land_development_activity]\nvalue = -5000\nunit = \"sqft\""),
            "thresholds.land_development_activity.value",
            "must be a positive number",
        ),
        (
            "zero threshold",
            carmel_with(lda, "[thresholds.land_development_activity]\nvalue = 0\nunit = \"sqft\""),
            "thresholds.land_development_activity.value",
            "must be a positive number",
        ),
        (
            "unknown discharge kind",
            carmel_with(
                "\n[land_use]\n",
                "\n[[exempt_discharges]]\nkind = \"gizmo_water\"\ntext = \"x\"\nrule = \"carmel.lda.exemptions\"\ncitation = \"x\"\n\n[land_use]\n",
            ),
            "exempt_discharges[0].kind",
            "unknown discharge kind \"gizmo_water\"",
        ),
        (
            "near-miss discharge kind",
            carmel_with(
                "\n[land_use]\n",
                "\n[[exempt_discharges]]\nkind = \"floor drain\"\ntext = \"x\"\nrule = \"carmel.lda.exemptions\"\ncitation = \"x\"\n\n[land_use]\n",
            ),
            "exempt_discharges[0].kind",
            "did you mean \"indoor_drain\"",
        ),
        (
            "unknown tolerance unit",
            carmel_with("snap_tolerance = { value = 1.0, unit = \"ft\" }", "snap_tolerance = { value = 1.0, unit = \"yd\" }"),
            "tolerances.snap_tolerance.unit",
            "unknown unit \"yd\", expected ft, us_ft or m",
        ),
        (
            "zero tolerance",
            carmel_with("snap_tolerance = { value = 1.0,", "snap_tolerance = { value = 0.0,"),
            "tolerances.snap_tolerance.value",
            "must be a positive number",
        ),
        (
            "rule id not shaped like a catalogue id",
            carmel_with("rule = \"carmel.condition_two\"", "rule = \"Condition Two\""),
            "thresholds.condition_two.rule",
            "does not look like a catalogue rule id",
        ),
        (
            "rule id missing from [rules]",
            carmel_with("rule = \"carmel.condition_two\"", "rule = \"carmel.condition_four\""),
            "thresholds.condition_two.rule",
            "not listed under [rules]",
        ),
        (
            "rule of another jurisdiction",
            carmel_with("[rules.\"carmel.fees\"]", "[rules.\"windsor.fees\"]"),
            "rules.\"windsor.fees\"",
            "belongs to another jurisdiction",
        ),
        (
            "duplicate land-use code",
            carmel_with("codes = [\"700-799\"]", "codes = [\"700-799\", \"400-499\"]"),
            "land_use.commercial.codes[0]",
            "duplicate code \"400-499\"",
        ),
        (
            "bad land-use code",
            carmel_with("codes = [\"700-799\"]", "codes = [\"7xx\"]"),
            "land_use.industrial.codes[0]",
            "bad code \"7xx\"",
        ),
        (
            "duplicate land-use word",
            carmel_with("\"industrial\", \"ind\"", "\"industrial\", \"Commercial\""),
            "land_use.commercial.words[0]",
            "duplicate word",
        ),
        (
            "bad ambiguity id",
            carmel_with("[assumptions.AMB-07]", "[assumptions.AMBIGUITY-7]"),
            "assumptions.AMBIGUITY-7",
            "not an ambiguity id",
        ),
        (
            "missing required key",
            carmel_with("name = \"Town of Carmel\"\n", ""),
            "name",
            "required key is missing",
        ),
        (
            "missing key in a table",
            carmel_with("[thresholds.condition_two]\nvalue = 5\nunit = \"acre\"\n", "[thresholds.condition_two]\nvalue = 5\n"),
            "thresholds.condition_two.unit",
            "required key is missing",
        ),
        (
            "missing key in an inline table",
            carmel_with("snap_tolerance = { value = 1.0, unit = \"ft\" }", "snap_tolerance = { value = 1.0 }"),
            "tolerances.snap_tolerance.unit",
            "required key is missing",
        ),
        (
            "every and within together",
            carmel_with("every = 7\n", "every = 7\nwithin = 2\n"),
            "inspections.construction_routine",
            "not both",
        ),
        (
            "id that does not match the file",
            carmel_with("id = \"carmel-ny\"", "id = \"carmel\""),
            "id",
            "does not match the file name",
        ),
    ];
    for (what, text, key, needle) in cases {
        let err = Profile::with_id("carmel-ny", &text, "carmel-ny.toml").unwrap_err();
        let msg = err.to_string();
        assert_eq!(err.key(), Some(key), "{what}: {msg}");
        assert!(
            msg.starts_with(&format!("carmel-ny.toml: {key}: ")),
            "{what}: {msg}"
        );
        assert!(msg.contains(needle), "{what}: {msg}");
    }
}

#[test]
fn syntax_errors_give_line_and_column() {
    let err = Profile::from_toml_str("id = \"x\"\n[thresholds\n", "x.toml").unwrap_err();
    match err {
        ProfileError::Syntax { line, .. } => assert_eq!(line, 2),
        other => panic!("expected a syntax error, got {other}"),
    }
}

/// The typed AMB-14 and AMB-30 readings: the built-in text reads as written, a cycle year
/// is a year, and a wrong type is refused at load with the key.
#[test]
fn typed_cutoff_and_list_cycle_readings() {
    let carmel = builtin("carmel-ny");
    let cutoff = carmel.exemption_cutoff().expect("Carmel sets AMB-14");
    assert_eq!(cutoff.effective_date.to_string(), "2008-12-17");
    assert!(cutoff.confirmed);
    assert_eq!(carmel.list_cycle(), Some(ListCycle::Latest));
    let nc = builtin("north-castle-ny");
    assert!(
        !nc.exemption_cutoff()
            .expect("North Castle sets AMB-14")
            .confirmed
    );

    let year = carmel_with(
        "setting = { list_cycle = \"latest\" }",
        "setting = { list_cycle = 2022 }",
    );
    let p = Profile::from_toml_str(&year, "carmel-ny.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.list_cycle(), Some(ListCycle::Year(2022)));

    let text = carmel_with("confirmed = true }", "confirmed = \"yes\" }");
    let err = Profile::from_toml_str(&text, "carmel-ny.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("carmel-ny.toml")
            && err.contains("assumptions.AMB-14.setting")
            && err.contains("confirmed"),
        "{err}"
    );
}
