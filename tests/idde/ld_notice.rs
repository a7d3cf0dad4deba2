//! The land development notice of violation (North Castle ch. 267 Part 1 C(1), Carmel
//! § 156-88A): its six items in the law's words, filled from the facts given and the
//! case's parcel, every missing fact listed as open and never invented, through the CLI
//! and the API; Windsor, whose law has no such section, says it has none.

use serde_json::{json, Value};

use crate::common::*;

const X0: f64 = 670_000.0;
const Y0: f64 = 870_000.0;

/// A registry of `town` with one parcel, P-SITE (owner and address on record), and a
/// parcel without them, P-BARE.
fn registry(dir: &std::path::Path, town: &str) -> String {
    let url = format!("sqlite://{}", dir.join("registry.gpkg").display());
    run_ok(
        &url,
        &["init", "--jurisdiction", town, "--crs", "EPSG:2260"],
    );
    let parcels = fc(&[
        feature(
            r#""parcel_id":"P-SITE","land_use":"vacant","owner":"Hill Top Builders LLC","address":"12 Ridge Rd""#,
            &rect(X0, Y0, 300.0, 300.0),
        ),
        feature(
            r#""parcel_id":"P-BARE","land_use":"vacant""#,
            &rect(X0 + 400.0, Y0, 300.0, 300.0),
        ),
    ]);
    let path = dir.join("parcels.geojson");
    std::fs::write(&path, parcels).unwrap();
    run_ok(&url, &["import", "parcels", path.to_str().unwrap()]);
    url
}

fn items(html: &str) -> Vec<String> {
    html.split("<section class=\"item\" data-key=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

fn open_facts(html: &str) -> Vec<String> {
    let Some(at) = html.find("<section class=\"open-facts\">") else {
        return Vec::new();
    };
    html[at..]
        .split("<li>")
        .skip(1)
        .map(|s| s[..s.find("</li>").unwrap()].to_string())
        .collect()
}

fn complete_facts() -> Value {
    json!({
        "parcel_id": "P-SITE",
        "owner_address": "PO Box 7, Armonk NY 10504",
        "violation": "Silt fence along the north slope down; sediment leaving the site into the roadside swale",
        "remedial_measures": [
            {"measure": "Reinstall and trench the silt fence along the north slope", "complete_by": "2026-06-05"},
            {"measure": "Remove the sediment from the swale", "complete_by": "2026-06-12"}
        ],
        "served_on": "2026-06-01"
    })
}

/// The six items of the town's law, complete: the owner and site from the parcel, the
/// appeal date 15 calendar days after service (1 June + 15 = 16 June).
fn check_complete(html: &str, citation_item_1: &str, issuer: &str, law_word: &str) {
    assert_eq!(
        items(html),
        [
            "owner",
            "site",
            "violation",
            "remedial_measures",
            "penalties",
            "appeal"
        ],
        "{html}"
    );
    assert!(html.contains("The name and address of the landowner, developer or applicant"));
    assert!(html.contains(&format!(
        "into compliance with this {law_word} and a time schedule for the completion of such remedial action"
    )));
    assert!(html.contains(citation_item_1), "{html}");
    assert!(html.contains("Hill Top Builders LLC") && html.contains("PO Box 7, Armonk NY 10504"));
    assert!(html.contains("12 Ridge Rd (parcel P-SITE)"), "{html}");
    assert!(html.contains("Silt fence along the north slope down"));
    assert!(html.contains("<td>Remove the sediment from the swale</td><td>2026-06-12</td>"));
    assert!(html.contains("a fine not exceeding $350"), "{html}");
    assert!(html.contains("not less than $350 nor more than $700"));
    assert!(html.contains("not less than $700 nor more than $1,000"));
    assert!(html.contains("imprisonment for a period not to exceed six months"));
    assert!(html.contains(&format!(
        "appealed to {issuer} by filing a written notice of appeal within 15 days of service"
    )));
    assert!(
        html.contains("served on 2026-06-01, the appeal is to be filed by 2026-06-16"),
        "{html}"
    );
    assert!(open_facts(html).is_empty(), "{:?}", open_facts(html));
}

#[test]
fn carmel_and_north_castle_print_the_six_items_through_the_cli() {
    for (town, cite, issuer, word) in [
        ("carmel-ny", "§ 156-88A(1)", "the Town of Carmel", "article"),
        (
            "north-castle-ny",
            "Ch. 267 Part 1, [Inspection/guarantee/enforcement section] C(1)(a)",
            "the Town of North Castle",
            "chapter",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let url = registry(dir.path(), town);
        let html = run_ok(&url, &["case", "ld-notice", &complete_facts().to_string()]);
        check_complete(&html, cite, issuer, word);

        // The same facts as options, one remedy without its day and no day of service:
        // each missing fact is an open fact and a blank, nothing made up.
        let out = run(
            &url,
            &[
                "case",
                "ld-notice",
                "--parcel",
                "P-BARE",
                "--violation",
                "Grading without an approved SWPPP",
                "--remedy",
                "Stabilise the disturbed area",
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let html = String::from_utf8(out.stdout).unwrap();
        let open = open_facts(&html);
        let has = |w: &str| open.iter().any(|f| f.contains(w));
        assert!(has("the name of the landowner"), "{open:?}");
        assert!(has("the address of the landowner"), "{open:?}");
        assert!(
            has("the address or a description of the building"),
            "{open:?}"
        );
        assert!(has("'Stabilise the disturbed area'"), "{open:?}");
        assert!(has("the day of service"), "{open:?}");
        assert!(!has("the nature of the violation"), "{open:?}");
        assert_eq!(open.len(), 5, "{open:?}");
        assert!(
            !html.contains("Hill Top Builders"),
            "another parcel's owner"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("5 open fact(s)"), "{err}");

        // Bad input names the field.
        let out = run(&url, &["case", "ld-notice", "--parcel", "P-NONE"]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && e.contains("parcel_id") && e.contains("P-NONE"),
            "{e}"
        );
        let out = run(&url, &["case", "ld-notice", "--remedy", "Fix it@June"]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("--remedy"), "{e}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn carmel_fills_the_notice_from_a_case_through_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let url = registry(dir.path(), "carmel-ny");
    let t = token(&url, "officer", "Sam Officer", &[]);
    let http = App::new(&ms4::store::open(&url).await.unwrap()).await;
    let base = &http.base;
    let case: Value = http
        .post(format!("{base}/api/cases"))
        .bearer_auth(&t)
        .json(
            &json!({"origin": "staff", "opened_on": "2026-05-20", "parcel_id": "P-SITE",
            "description": "Clearing and grading beyond the approved limit of disturbance"}),
        )
        .send()
        .await
        .json();
    let id = case["case_id"].as_str().unwrap().to_string();
    let r = http
        .post(format!("{base}/api/cases/{id}/actions"))
        .bearer_auth(&t)
        .json(&json!({"kind": "notice_of_violation", "on": "2026-05-22", "method": "hand"}))
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 201);
    // From the case: the owner from its parcel, the violation its description, the day
    // of service its notice_of_violation (22 May + 15 = Saturday 6 June, which runs to
    // Monday 8 June: N.Y. General Construction Law § 25-a); the owner's mailing
    // address and the remedies are not on record: open facts.
    let r = http
        .post(format!("{base}/api/notices/land-development"))
        .bearer_auth(&t)
        .json(&json!({"case_id": id}))
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(r.headers()["x-open-facts"], "2");
    let html = r.text();
    assert!(html.contains(&format!("Case {id}")));
    assert!(html.contains("Hill Top Builders LLC"));
    assert!(html.contains("Clearing and grading beyond the approved limit"));
    assert!(
        html.contains("served on 2026-05-22, the appeal is to be filed by 2026-06-08"),
        "{html}"
    );
    let open = open_facts(&html);
    assert_eq!(open.len(), 2, "{open:?}");
    assert!(open[0].contains("the address of the landowner"));
    assert!(open[1].contains("the remedial measures"));
    // With the rest given, a second offence within five years is in the second tier.
    let mut body = complete_facts();
    body["case_id"] = json!(id);
    body["earlier_offences"] = json!(["2023-04-01"]);
    let html = http
        .post(format!("{base}/api/notices/land-development"))
        .bearer_auth(&t)
        .json(&body)
        .send()
        .await
        .text();
    check_complete(&html, "§ 156-88A(1)", "the Town of Carmel", "article");
    assert!(
        html.contains("this is offence 2 within the window: a fine of $350 to $700"),
        "{html}"
    );
    // Bad input: a 400 naming the field.
    for (body, names) in [
        (json!({"case_id": "CASE-2026-0999"}), "CASE-2026-0999"),
        (json!({"served": "2026-06-01"}), "served"),
        (
            json!({"remedial_measures": [{"measure": " "}]}),
            "remedial_measures[0].measure",
        ),
    ] {
        let r = http
            .post(format!("{base}/api/notices/land-development"))
            .bearer_auth(&t)
            .json(&body)
            .send()
            .await;
        let status = r.status().as_u16();
        let v: Value = r.json();
        assert!(status == 400 || status == 404, "{status} {v}");
        assert!(v["error"].as_str().unwrap().contains(names), "{v}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn windsor_has_no_land_development_notice() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("registry.gpkg").display());
    run_ok(
        &url,
        &["init", "--jurisdiction", "windsor-ct", "--crs", "EPSG:2234"],
    );
    let out = run(&url, &["case", "ld-notice", &complete_facts().to_string()]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(
        e.contains("has no land development notice of violation"),
        "{e}"
    );
    let t = token(&url, "officer", "Sam Officer", &[]);
    let server = App::new(&ms4::store::open(&url).await.unwrap()).await;
    let r = server
        .post(format!("{}/api/notices/land-development", server.base))
        .bearer_auth(&t)
        .json(&json!({"violation": "anything"}))
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json();
    assert!(v["error"].as_str().unwrap().contains("Windsor"), "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("no land development notice"),
        "{v}"
    );
}
