//! A town whose law is none of the built-in three: `ms4 profile new` writes a documented
//! profile that loads with the real schema for every family, every value the law should
//! give marked as a program setting; answers that use one cite "program setting, not
//! from your law" until the analyst writes the law's section over it; a registry made on
//! it calls itself by the town's name; and `init` with an unknown id points to
//! `ms4 profile new`.

mod common;

use common::*;
use ms4::domain::{Area, AreaUnit};
use ms4::rules::determine::{determine, ProjectFacts, WaterEvidence};
use ms4::rules::illicit::{self, ConnectionFacts, IllicitStatus, Ms4Reach, SourceParcel};
use ms4::rules::{
    Family, IllicitDischargeFamily, LandDevelopmentFamily, Profile, TemplateRequest,
    PROGRAM_SETTING,
};
use rstest::rstest;
use serde_json::Value;

const NAME: &str = "Town of Quarry Hollow";

fn request(land: LandDevelopmentFamily, illicit: IllicitDischargeFamily) -> TemplateRequest {
    TemplateRequest {
        family: Family {
            land_development: land,
            illicit_discharge: illicit,
        },
        name: NAME.to_string(),
        id: None,
        state: Some("VT".to_string()),
    }
}

/// The text of a `ny-conditions` template, and its profile.
fn ny_conditions() -> (String, Profile) {
    let t = Profile::template(&request(
        LandDevelopmentFamily::NyConditions,
        IllicitDischargeFamily::ModelOrdinance,
    ))
    .unwrap();
    let p = Profile::from_toml_str(&t.text, "quarry-hollow-vt.toml").unwrap();
    (t.text, p)
}

#[rstest]
#[case::ny_conditions(
    LandDevelopmentFamily::NyConditions,
    IllicitDischargeFamily::ModelOrdinance
)]
#[case::ny_conditions_alone(LandDevelopmentFamily::NyConditions, IllicitDischargeFamily::None)]
#[case::ny_general_permit(
    LandDevelopmentFamily::NyGeneralPermit,
    IllicitDischargeFamily::ModelOrdinance
)]
#[case::ny_general_permit_alone(
    LandDevelopmentFamily::NyGeneralPermit,
    IllicitDischargeFamily::None
)]
#[case::illicit_discharge_only(
    LandDevelopmentFamily::IllicitDischargeOnly,
    IllicitDischargeFamily::ModelOrdinance
)]
fn every_family_writes_a_documented_profile_that_loads(
    #[case] land: LandDevelopmentFamily,
    #[case] illicit: IllicitDischargeFamily,
) {
    let t = Profile::template(&request(land, illicit)).unwrap();
    assert_eq!(t.id, "quarry-hollow-vt");
    let p = Profile::from_toml_str(&t.text, "quarry-hollow-vt.toml").unwrap();
    assert_eq!(p.name, NAME);
    assert_eq!(p.state, "VT");
    assert_eq!(p.family.land_development, land);
    assert_eq!(p.family.illicit_discharge, illicit);
    // Every rule the family decides is there, and none cites a section yet.
    for role in p.family.required_roles() {
        let id = p.role_id(role).unwrap();
        assert_eq!(p.citation(id), Some(PROGRAM_SETTING), "{role}");
    }
    for (name, th) in p.thresholds.iter() {
        assert_eq!(th.citation, PROGRAM_SETTING, "thresholds.{name}");
    }
    assert!(p
        .exempt_discharges
        .iter()
        .all(|e| e.citation == PROGRAM_SETTING));
    assert_eq!(
        p.exempt_discharges.is_empty(),
        illicit == IllicitDischargeFamily::None
    );
    let unfilled = p.unfilled();
    assert!(unfilled.len() >= p.rules.len(), "{unfilled:?}");
    // Documented line by line: each table and rule has a comment above it saying where a
    // typical ordinance states it.
    let lines: Vec<&str> = t.text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("[thresholds.") || line.starts_with("[rules.") {
            assert!(
                lines[i - 1].starts_with("# "),
                "{line} has no comment above it"
            );
        }
    }
    assert!(t.text.contains("definitions section"), "{}", t.text);
    // No built-in town's name, law or offices.
    for other in [
        "Windsor",
        "Carmel",
        "North Castle",
        "156-",
        "267-",
        "Sec. 3-",
    ] {
        assert!(!t.text.contains(other), "{other} in the template");
    }
}

#[rstest]
#[case::land_alone(&["ny-conditions"], Ok((LandDevelopmentFamily::NyConditions, IllicitDischargeFamily::ModelOrdinance)))]
#[case::illicit_alone(&["model-ordinance"], Ok((LandDevelopmentFamily::IllicitDischargeOnly, IllicitDischargeFamily::ModelOrdinance)))]
#[case::both(&["ny-general-permit", "none"], Ok((LandDevelopmentFamily::NyGeneralPermit, IllicitDischargeFamily::None)))]
#[case::unknown(&["ny-condition"], Err("unknown family \"ny-condition\", expected ny-conditions"))]
#[case::two_land(&["ny-conditions", "ny-general-permit"], Err("two land development families"))]
#[case::nothing_to_apply(&["none"], Err("leaves the registry no law to apply"))]
fn families_are_named_on_the_command_line(
    #[case] names: &[&str],
    #[case] expected: Result<(LandDevelopmentFamily, IllicitDischargeFamily), &str>,
) {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    match (Family::from_names(&names), expected) {
        (Ok(f), Ok((land, illicit))) => {
            assert_eq!((f.land_development, f.illicit_discharge), (land, illicit));
        }
        (Err(why), Err(words)) => assert!(why.contains(words), "{why}"),
        (got, want) => panic!("{names:?}: got {got:?}, want {want:?}"),
    }
}

/// Writes the law's section over one rule's and one threshold's program setting, as the
/// analyst does, and sets the law's own value.
fn fill_land_development_activity(text: &str) -> Profile {
    let mut table: toml::Table = text.parse().unwrap();
    let th = table["thresholds"]["land_development_activity"]
        .as_table_mut()
        .unwrap();
    th.insert("value".into(), toml::Value::Integer(5000));
    th.insert("unit".into(), "sqft".into());
    th.insert(
        "citation".into(),
        "§ 12-2, land development activity".into(),
    );
    let rule = table["roles"]["land_development_activity"]
        .as_str()
        .unwrap()
        .to_string();
    table["rules"][rule.as_str()]
        .as_table_mut()
        .unwrap()
        .insert("citation".into(), "§ 12-2".into());
    Profile::from_toml_str(&toml::to_string(&table).unwrap(), "quarry-hollow-vt.toml").unwrap()
}

#[test]
fn findings_cite_a_program_setting_until_the_analyst_writes_the_law_in() {
    let (text, profile) = ny_conditions();
    let facts = ProjectFacts::new(Area::new(2.0, AreaUnit::Acre));
    let d = determine(&profile, &facts, &WaterEvidence::default());
    let lda = serde_json::to_string(&d.land_development_activity).unwrap();
    assert_eq!(d.land_development_activity.result, Some(true), "{lda}");
    assert!(
        d.land_development_activity
            .citations
            .iter()
            .any(|c| c.citation == PROGRAM_SETTING),
        "{lda}"
    );
    assert!(lda.contains("1 acre") || lda.contains("43,560"), "{lda}");

    let filled = fill_land_development_activity(&text);
    assert!(!filled
        .unfilled()
        .contains(&"thresholds.land_development_activity".to_string()));
    let d = determine(&filled, &facts, &WaterEvidence::default());
    let lda = serde_json::to_string(&d.land_development_activity).unwrap();
    assert_eq!(d.land_development_activity.result, Some(true), "{lda}");
    assert!(!lda.contains(PROGRAM_SETTING), "{lda}");
    assert!(lda.contains("§ 12-2"), "{lda}");
    assert!(lda.contains("5,000 sq ft"), "{lda}");
    // A value still unfilled keeps saying so: Condition Two's five acres.
    let c2 = serde_json::to_string(&d.conditions.unwrap().condition_two).unwrap();
    assert!(c2.contains(PROGRAM_SETTING), "{c2}");
}

/// The illicit answer cites the exempt list as a program setting: springs are on the
/// model list (exempt), lawn watering is not (illicit), and neither names a section.
#[rstest]
#[case::springs("springs", IllicitStatus::Ok)]
#[case::lawn_watering("lawn watering", IllicitStatus::Illicit)]
fn the_exempt_list_is_cited_as_a_program_setting(#[case] kind: &str, #[case] want: IllicitStatus) {
    let t = Profile::template(&request(
        LandDevelopmentFamily::IllicitDischargeOnly,
        IllicitDischargeFamily::ModelOrdinance,
    ))
    .unwrap();
    let p = Profile::from_toml_str(&t.text, "quarry-hollow-vt.toml").unwrap();
    let facts = ConnectionFacts {
        connection_id: "C-1".into(),
        discharge_kind_raw: Some(kind.into()),
        source_parcel: Some(SourceParcel {
            parcel_id: "P-1".into(),
            land_use_raw: Some("single family".into()),
            found_by: "connection's parcel_id".into(),
        }),
        ms4: Ms4Reach::Ms4 {
            asset: "CB-1".into(),
            owner: Some(NAME.into()),
            path: vec!["CB-1".into()],
        },
        ..ConnectionFacts::default()
    };
    let f = illicit::evaluate(&p, &facts);
    let text = serde_json::to_string(&f).unwrap();
    assert_eq!(f.result, want, "{text}");
    assert!(
        f.citations.iter().all(|c| c.citation == PROGRAM_SETTING),
        "{text}"
    );
    assert!(text.contains(NAME), "{text}");
}

#[test]
fn a_registry_on_a_new_profile_calls_itself_by_the_towns_name() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("profiles");
    std::fs::create_dir(&dir).unwrap();
    let url = format!("sqlite://{}", work.path().join("registry.gpkg").display());
    let said = run_ok(
        &url,
        &[
            "profile",
            "new",
            "--family",
            "illicit-discharge-only,model-ordinance",
            "--name",
            NAME,
            "--state",
            "VT",
            "--out",
            dir.to_str().unwrap(),
        ],
    );
    assert!(said.contains("quarry-hollow-vt.toml"), "{said}");
    assert!(said.contains("--jurisdiction quarry-hollow-vt"), "{said}");
    // Written twice without --force is refused, and the file kept.
    let again = run(
        &url,
        &[
            "profile",
            "new",
            "--family",
            "model-ordinance",
            "--name",
            NAME,
            "--state",
            "VT",
            "--out",
            dir.to_str().unwrap(),
        ],
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));

    let created = run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "quarry-hollow-vt",
            "--crs",
            "EPSG:32145",
            "--profiles",
            dir.to_str().unwrap(),
        ],
    );
    assert!(created.contains(NAME), "{created}");
    assert!(!created.contains("Windsor"), "{created}");
    let shown: Value =
        serde_json::from_str(&run_ok(&url, &["profile", "show", "--format", "json"])).unwrap();
    assert_eq!(shown["profile_id"], "quarry-hollow-vt");
    let stored = Profile::from_toml_str(shown["toml"].as_str().unwrap(), "stored").unwrap();
    assert_eq!(stored.name, NAME);
    let unfilled = run_ok(&url, &["profile", "unfilled"]);
    assert!(
        unfilled.contains("thresholds.construction_activity"),
        "{unfilled}"
    );
    assert!(unfilled.contains(PROGRAM_SETTING), "{unfilled}");
}

#[test]
fn init_with_an_unknown_jurisdiction_points_to_profile_new() {
    let work = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", work.path().join("registry.gpkg").display());
    let out = run(
        &url,
        &[
            "init",
            "--jurisdiction",
            "springfield-vt",
            "--crs",
            "EPSG:32145",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"springfield-vt\""), "{err}");
    assert!(err.contains("ms4 profile new --family"), "{err}");
}

#[test]
fn a_file_named_for_another_id_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let out_file = work.path().join("mytown.toml");
    let out = ms4()
        .args([
            "profile",
            "new",
            "--family",
            "ny-conditions",
            "--name",
            NAME,
            "--out",
        ])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("quarry-hollow.toml"), "{err}");
    assert!(err.contains("--id mytown"), "{err}");
    assert!(!out_file.exists());
}

/// Issue 25 item 1: every New York profile needs New York's holidays and § 25-a's roll;
/// a profile written for a town in New York (or Connecticut) carries its state's
/// calendar as the built-in town of that state keeps it, and a state with none gets none.
#[rstest]
#[case::new_york("NY", "north-castle-ny", true)]
#[case::connecticut("CT", "windsor-ct", false)]
#[case::vermont("VT", "", false)]
fn a_new_profile_keeps_its_states_business_days(
    #[case] state: &str,
    #[case] like: &str,
    #[case] rolls: bool,
) {
    let mut req = request(
        LandDevelopmentFamily::NyConditions,
        IllicitDischargeFamily::ModelOrdinance,
    );
    req.state = Some(state.to_string());
    let t = Profile::template(&req).unwrap();
    let p = Profile::from_toml_str(&t.text, &format!("{}.toml", t.id)).unwrap();
    assert_eq!(p.idde.periods_roll_to_business_day, rolls, "{}", t.text);
    if like.is_empty() {
        assert!(p.idde.holidays.is_empty());
        assert!(
            t.text.contains("No business-day calendar for VT"),
            "{}",
            t.text
        );
    } else {
        let town = Profile::builtin(like).unwrap();
        assert_eq!(p.idde.holidays, town.idde.holidays);
        assert!(!p.idde.holidays.is_empty());
    }
}
