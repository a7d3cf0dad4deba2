//! A registry keeps its jurisdiction profile: `init` stores it whole, every command and
//! the server read it from the registry, `ms4 profile show` / `update` show and replace
//! it (audited), older registries that keep only the id get the built-in profile on
//! first open (as a migration, unaudited), and a newer built-in profile is reported, never applied. On both stores.

mod common;

use std::path::Path;

use common::*;
use ms4::import::crs;
use ms4::store::{self, StoredProfile};
use rstest::rstest;

fn north_castle_text() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/jurisdictions/north-castle-ny.toml"),
    )
    .unwrap()
}

/// North Castle's law under another town's id and name, written to `<dir>/<id>.toml`.
fn own_profile(dir: &Path, id: &str, name: &str) -> String {
    let text = north_castle_text()
        .replacen("id = \"north-castle-ny\"", &format!("id = \"{id}\""), 1)
        .replacen(
            "name = \"Town of North Castle\"",
            &format!("name = \"{name}\""),
            1,
        );
    assert!(
        text.contains(name),
        "the name line is where the test expects it"
    );
    std::fs::write(dir.join(format!("{id}.toml")), &text).unwrap();
    text
}

fn url_of(kind: &str, dir: &Path) -> String {
    match kind {
        "sqlite" => format!("sqlite://{}", dir.join("registry.gpkg").display()),
        _ => fresh_pg_url("towns").expect("postgis requested"),
    }
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn show_json(url: &str) -> serde_json::Value {
    serde_json::from_str(&run_ok(url, &["profile", "show", "--format", "json"])).unwrap()
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_towns_own_profile_travels_with_its_registry(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let profiles = work.path().join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    let text = own_profile(&profiles, "lakeview-ny", "Town of Lakeview");
    let url = url_of(kind, work.path());
    let dir = profiles.display().to_string();
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "lakeview-ny",
            "--crs",
            "EPSG:2260",
            "--profiles",
            &dir,
        ],
    );
    // The folder is gone: every later command reads the registry's copy.
    std::fs::remove_dir_all(&profiles).unwrap();
    let v = show_json(&url);
    assert_eq!(v["profile_id"], "lakeview-ny", "{kind}");
    assert_eq!(v["toml"], text.as_str(), "{kind}: stored as given");
    assert_eq!(v["source"], "lakeview-ny.toml", "{kind}");
    assert_eq!(
        v["sha256"].as_str().unwrap(),
        ms4::store::profile::sha256_hex(&text),
        "{kind}"
    );
    assert!(
        v["newer_builtin_sha256"].is_null(),
        "{kind}: not a built-in id"
    );
    let table = run_ok(&url, &["profile", "show"]);
    assert!(
        table.starts_with("# profile lakeview-ny"),
        "{kind}: {table}"
    );
    assert!(table.contains("name = \"Town of Lakeview\""), "{kind}");
    for args in [
        &["illicit", "--format", "json"][..],
        &["smps-without-easement", "--format", "json"],
        &[
            "nearby", "--x", "670000", "--y", "870000", "--radius", "100ft",
        ],
        &["network-check"],
    ] {
        run_ok(&url, args);
    }
    let rules = run_ok(&url, &["profile", "rules", "--format", "json"]);
    let rules: serde_json::Value = serde_json::from_str(&rules).unwrap();
    assert!(
        rules["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "northcastle.lda.applicability"
                && r["roles"][0] == "land_development_activity"
                && r["decided_in"][0] == "ms4::rules::determine::general_permit"),
        "{kind}"
    );

    // The server too: it starts and answers from the stored profile.
    let store = ms4::store::open(&url).await.unwrap();
    let body: serde_json::Value = App::public(&store)
        .await
        .get("/api/illicit")
        .send()
        .await
        .json();
    assert!(body["connections"].is_array(), "{kind}: {body}");
    drop(store);

    // An update is checked, stored and audited with the old and new texts.
    let newer = text.replacen("Town of Lakeview", "Town of Lakeview (2027)", 1);
    let file = work.path().join("lakeview-2027.toml");
    std::fs::write(&file, &newer).unwrap();
    let said = run_ok(&url, &["profile", "update", file.to_str().unwrap()]);
    assert!(said.contains("updated"), "{kind}: {said}");
    let v = show_json(&url);
    assert_eq!(v["toml"], newer.as_str(), "{kind}");
    assert_eq!(v["source"], "lakeview-2027.toml", "{kind}");
    let registry = store::open(&url).await.unwrap();
    let audit = registry.audit(None, 20).await.unwrap();
    let updates: Vec<_> = audit
        .iter()
        .filter(|a| a.action == "profile_update")
        .collect();
    assert_eq!(updates.len(), 2, "{kind}: init and update");
    let last = updates[0];
    assert_eq!(
        last.before.as_ref().unwrap()["toml"],
        text.as_str(),
        "{kind}"
    );
    assert_eq!(
        last.after.as_ref().unwrap()["toml"],
        newer.as_str(),
        "{kind}"
    );
    assert_eq!(last.feature_id.as_deref(), Some("lakeview-ny"), "{kind}");

    // Refused, leaving the stored copy as it was: another town's id, and a bad key.
    let other = work.path().join("other.toml");
    std::fs::write(&other, north_castle_text()).unwrap();
    let out = run(&url, &["profile", "update", other.to_str().unwrap()]);
    assert!(!out.status.success(), "{kind}");
    let err = stderr_of(&out);
    assert!(
        err.contains("other.toml: id:") && err.contains("north-castle-ny"),
        "{kind}: {err}"
    );
    let bad = work.path().join("bad.toml");
    std::fs::write(
        &bad,
        newer.replacen("[tolerances]", "[tolerances]\nsnap_tolerence = 1", 1),
    )
    .unwrap();
    let out = run(&url, &["profile", "update", bad.to_str().unwrap()]);
    assert!(!out.status.success(), "{kind}");
    let err = stderr_of(&out);
    assert!(
        err.contains("bad.toml") && err.contains("snap_tolerence") && err.contains("line"),
        "{kind}: {err}"
    );
    assert_eq!(show_json(&url)["toml"], newer.as_str(), "{kind}: unchanged");
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_registry_that_keeps_only_its_id_stores_the_builtin_profile_on_first_open(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let url = url_of(kind, work.path());
    // As an older ms4 made it: the id in the meta table, no profile.
    let meta = crs::registry_meta("carmel-ny", 2260).unwrap();
    let registry = store::create(&url, &meta).await.unwrap();
    assert!(registry.stored_profile().await.unwrap().is_none(), "{kind}");
    let out = run(&url, &["illicit", "--format", "json"]);
    assert!(out.status.success(), "{kind}: {}", stderr_of(&out));
    // Quietly, as a migration: nothing on stderr but the audit row below says so.
    assert!(
        stderr_of(&out).trim().is_empty(),
        "{kind}: {}",
        stderr_of(&out)
    );
    let stored = registry.stored_profile().await.unwrap().expect("stored");
    assert_eq!(stored.source, "builtin", "{kind}");
    assert_eq!(
        stored.toml,
        ms4::rules::Profile::builtin_text("carmel-ny").unwrap(),
        "{kind}"
    );
    // Once: the next command reads the stored copy and stores nothing more.
    let out = run(&url, &["illicit", "--format", "json"]);
    assert!(out.status.success(), "{kind}");
    // Filled in as a migration is: the row says so, the audit of changes does not.
    assert!(
        stored.stored_by.ends_with("(first open)"),
        "{kind}: {}",
        stored.stored_by
    );
    let audit = registry.audit(None, 10).await.unwrap();
    assert_eq!(
        audit
            .iter()
            .filter(|a| a.action == "profile_update")
            .count(),
        0,
        "{kind}"
    );

    // An id this ms4 does not know is refused with the command that fixes it.
    let work2 = tempfile::tempdir().unwrap();
    let url2 = url_of(kind, work2.path());
    let meta = crs::registry_meta("gotham-ny", 2260).unwrap();
    store::create(&url2, &meta).await.unwrap();
    let out = run(&url2, &["illicit"]);
    assert!(!out.status.success(), "{kind}");
    let err = stderr_of(&out);
    assert!(
        err.contains("\"gotham-ny\"") && err.contains("ms4 profile update"),
        "{kind}: {err}"
    );
    // ... and works once the town's profile is stored.
    let profiles = work2.path().join("p");
    std::fs::create_dir(&profiles).unwrap();
    own_profile(&profiles, "gotham-ny", "Town of Gotham");
    run_ok(
        &url2,
        &[
            "profile",
            "update",
            profiles.join("gotham-ny.toml").to_str().unwrap(),
        ],
    );
    run_ok(&url2, &["illicit"]);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_newer_builtin_profile_is_reported_and_never_applied(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let url = url_of(kind, work.path());
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    let registry = store::open(&url).await.unwrap();
    let builtin = ms4::rules::Profile::builtin_text("north-castle-ny").unwrap();
    assert_eq!(
        show_json(&url)["toml"],
        builtin,
        "{kind}: init stores the built-in text"
    );
    assert!(show_json(&url)["newer_builtin_sha256"].is_null(), "{kind}");
    // A copy stored by an older ms4, whose built-in text has since changed.
    let older = builtin.replacen(
        "name = \"Town of North Castle\"",
        "name = \"Town of North Castle (old)\"",
        1,
    );
    assert_ne!(older, builtin);
    let copy = StoredProfile::new("north-castle-ny", &older, "builtin", "older ms4");
    registry.store_profile(&copy, false).await.unwrap();

    let out = run(&url, &["illicit", "--format", "json"]);
    assert!(out.status.success(), "{kind}");
    let err = stderr_of(&out);
    assert!(
        err.contains("built-in profile north-castle-ny") && err.contains("differs"),
        "{kind}: {err}"
    );
    let v = show_json(&url);
    assert_eq!(v["toml"], older.as_str(), "{kind}: not applied");
    assert_eq!(
        v["newer_builtin_sha256"].as_str().unwrap(),
        ms4::store::profile::sha256_hex(builtin),
        "{kind}"
    );
    // Applied only when asked.
    run_ok(&url, &["profile", "update", "--builtin"]);
    let v = show_json(&url);
    assert_eq!(v["toml"], builtin, "{kind}");
    assert!(v["newer_builtin_sha256"].is_null(), "{kind}");
    let out = run(&url, &["illicit", "--format", "json"]);
    assert!(!stderr_of(&out).contains("differs"), "{kind}");
}

/// A built-in profile stored by an older ms4, from before its `[wording]` table: the table
/// is taken from this ms4's built-in copy (said on stderr), every stored value is kept and
/// the stored text is unchanged; a town's own profile is never filled in that way.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_stored_builtin_copy_older_than_a_new_table_still_loads(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let url = url_of(kind, work.path());
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    let registry = store::open(&url).await.unwrap();
    let builtin = ms4::rules::Profile::builtin_text("north-castle-ny").unwrap();
    let start = builtin
        .find("\n[wording]\n")
        .expect("the built-in has [wording]");
    // The table and its sub-tables ([wording.notice]): a copy stored before either.
    let mut end = start + 1;
    while let Some(k) = builtin[end..].find("\n[") {
        end += k + 1;
        if !builtin[end..].starts_with("[wording") && !builtin[end..].starts_with("[[wording") {
            break;
        }
    }
    let older = format!("{}{}", &builtin[..=start], &builtin[end..]);
    assert!(
        !older.contains("\n[wording")
            && !older.contains("\n[[wording")
            && older.contains("[roles]")
    );
    let copy = StoredProfile::new("north-castle-ny", &older, "builtin", "older ms4");
    registry.store_profile(&copy, false).await.unwrap();

    let out = run(&url, &["profile", "rules", "--format", "json"]);
    assert!(out.status.success(), "{kind}: {}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("predates its [wording] table"),
        "{kind}: {err}"
    );
    assert_eq!(
        show_json(&url)["toml"],
        older.as_str(),
        "{kind}: stored text kept"
    );

    // The same text as a town's own profile: refused, naming the key.
    let own = StoredProfile::new("north-castle-ny", &older, "north-castle-ny.toml", "analyst");
    registry.store_profile(&own, false).await.unwrap();
    let out = run(&url, &["profile", "rules", "--format", "json"]);
    assert!(!out.status.success(), "{kind}");
    let err = stderr_of(&out);
    assert!(err.contains("wording.law"), "{kind}: {err}");
}
