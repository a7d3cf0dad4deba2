//! Item 18 of issue 25: each town's answers cite its own law. A rule the catalogue shares
//! between towns (the registry's recipe for flagging an illicit connection, the
//! commercial-or-industrial definition) is cited in each town's answer with that town's
//! sections only, never "NC … ; Windsor …"; a town added as data (Quarry Hollow, test
//! data) cites its own. Checked on the demo town, loaded on both stores, under each
//! profile: a determination for every parcel (facts varied from parcel to parcel so that
//! every branch of the land development rules speaks), every connection's illicit
//! finding, every SMP's easement finding, and the Condition One screen.

use ms4::answer::{determine, illicit, smps, Ask};
use ms4::domain::Layer;
use ms4::rules::Profile;
use ms4::spatial::Snapshot;
use serde_json::{json, Value};

use super::common::{demo_registry, fixture, kinds};

/// Each town, and the words and section patterns by which its law is cited.
const TOWNS: &[(&str, &[&str])] = &[
    (
        "north-castle-ny",
        &["North Castle", "NC ", "§ 267-", "Ch. 267", "Chapter 267"],
    ),
    ("carmel-ny", &["Carmel", "§ 156-", "Article X"]),
    ("windsor-ct", &["Windsor", "Sec. 3-1"]),
    (
        "quarry-hollow-ny",
        &["Quarry Hollow", "§ 41-", "Chapter 41"],
    ),
];

fn profile(id: &str) -> Profile {
    match Profile::builtin(id) {
        Ok(p) => p,
        Err(_) => {
            let path = fixture("quarry-hollow/quarry-hollow-ny.toml");
            let text = std::fs::read_to_string(&path).unwrap();
            Profile::from_toml_str(&text, "quarry-hollow-ny.toml").unwrap()
        }
    }
}

/// The facts of the project tried on the `i`th parcel: four sets in turn, between them
/// every exemption fact, a plat after North Castle's adoption, a larger common plan and
/// sizes either side of each threshold.
fn facts(i: usize) -> Value {
    match i % 4 {
        0 => json!({"disturbed": "2acres"}),
        1 => {
            json!({"disturbed": "6acres", "larger_common_plan": true, "agricultural_activity": true})
        }
        2 => json!({
            "disturbed": "0.5acre",
            "plat_approved_on": "2010-06-01",
            "building_permit_approved_on": "2007-12-19",
            "requires_stormwater_management_facility": true
        }),
        _ => json!({
            "disturbed": "4000sqft",
            "routine_maintenance": true,
            "completed_before_effective_date": false,
            "approved_before_effective_date": true
        }),
    }
}

/// Every piece of an answer's text that names a law: each citation, and the reasons,
/// assumptions and summaries written around them.
fn law_texts(v: &Value, key: Option<&str>, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                law_texts(x, Some(k), out);
            }
        }
        Value::Array(a) => {
            for x in a {
                law_texts(x, key, out);
            }
        }
        Value::String(s)
            if matches!(
                key,
                Some("citation" | "reasons" | "text" | "summary" | "title")
            ) =>
        {
            out.push(s.clone());
        }
        _ => {}
    }
}

/// Every answer of the demo town under `p`, as JSON.
fn answers(snap: &Snapshot, p: &Profile) -> Vec<Value> {
    let ask = Ask::new(snap, p);
    let mut all = Vec::new();
    let every = illicit::IllicitParams {
        status: ["illicit", "needs_review", "ok", "not_covered"]
            .map(String::from)
            .to_vec(),
    };
    all.push(serde_json::to_value(illicit::illicit(&ask, &every).unwrap()).unwrap());
    let smps = smps::smps_without_easement(&ask, &smps::SmpsParams { all: true }).unwrap();
    all.push(serde_json::to_value(smps).unwrap());
    let screen = determine::ScreenParams {
        disturbed: "2acres".into(),
        larger_common_plan: None,
        all: true,
        whole: true,
    };
    if let Ok(s) = determine::screen(&ask, &screen) {
        all.push(serde_json::to_value(s).unwrap());
    }
    for (i, parcel) in snap.layer(Layer::Parcels).features.iter().enumerate() {
        let Value::Object(mut body) = facts(i) else {
            unreachable!()
        };
        body.insert("parcel".into(), Value::String(parcel.id.clone()));
        let params = determine::DetermineParams::from_body(body).unwrap();
        let d = determine::determine(&ask, &params).unwrap();
        all.push(serde_json::to_value(d.determination).unwrap());
    }
    all
}

#[tokio::test]
async fn no_answer_of_one_town_cites_another_towns_law() {
    for kind in kinds() {
        let reg = demo_registry(kind, "north-castle-ny").await;
        let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
        for (town, _) in TOWNS {
            let p = profile(town);
            let mut texts = Vec::new();
            for a in answers(&snap, &p) {
                law_texts(&a, None, &mut texts);
            }
            assert!(texts.len() > 1000, "{kind} {town}: {} texts", texts.len());
            // The shared rules are reached: the recipe is cited wherever the law has one.
            if let Some(recipe) = p.role_id(ms4::rules::profile::Role::FlagIllicitConnection) {
                let own = ms4::rules::Citation::of(&p, recipe).citation.to_string();
                assert!(texts.contains(&own), "{kind} {town}: {own:?} not cited");
            }
            for (other, marks) in TOWNS.iter().filter(|(o, _)| o != town) {
                for mark in *marks {
                    let hit = texts.iter().find(|t| t.contains(mark));
                    assert!(
                        hit.is_none(),
                        "{kind}: an answer of {town} cites {other}'s law ({mark:?}): {hit:?}"
                    );
                }
            }
        }
    }
}

/// The recipe rule the catalogue shares ("NC § 267-4B ILLICIT CONNECTION (1)-(2),
/// § 267-12B; Windsor ILLICIT CONNECTIONS (1)-(2), Sec. 3-169(b)") is cited in each town's
/// illicit answers by the town's own sections; the fourth town, added as data, cites the
/// rule it maps to the recipe's role.
#[rstest::rstest]
#[case::north_castle("north-castle-ny", "§ 267-4B ILLICIT CONNECTION (1)-(2), § 267-12B")]
#[case::windsor(
    "windsor-ct",
    "Windsor Definitions section ILLICIT CONNECTIONS (1)-(2), Sec. 3-169(b)"
)]
#[case::a_town_added_as_data("quarry-hollow-ny", "§ 41-4B ILLICIT CONNECTION (1)-(2), § 41-22B")]
fn the_shared_recipe_is_cited_with_the_towns_own_sections(#[case] town: &str, #[case] own: &str) {
    let p = profile(town);
    let id = p
        .role_id(ms4::rules::profile::Role::FlagIllicitConnection)
        .unwrap();
    let c = ms4::rules::Citation::of(&p, id);
    assert_eq!(c.citation, own);
    // Counter-case: Carmel's Article X has no illicit-connection rules, so no recipe.
    let carmel = profile("carmel-ny");
    assert!(carmel
        .role_id(ms4::rules::profile::Role::FlagIllicitConnection)
        .is_none());
}
