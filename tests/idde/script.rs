//! The scripted year, run either through `ms4` commands or through the service's API
//! (its router, driven in process).

use serde_json::{json, Value};

use crate::common::*;

#[path = "report.rs"]
mod report;

/// Which edge the script drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Cli,
    Api,
}

struct Town {
    via: Via,
    url: String,
    server: Option<App>,
    token: String,
}

impl Town {
    /// POSTs `body` to `path`, or runs `ms4 args... BODY`; the answer or the error text.
    async fn post(&self, path: &str, cli: &[&str], body: Value) -> Result<Value, String> {
        match self.via {
            Via::Api => {
                let base = &self.server.as_ref().unwrap().base;
                let r = self
                    .server
                    .as_ref()
                    .unwrap()
                    .post(format!("{base}{path}"))
                    .bearer_auth(&self.token)
                    .json(&body)
                    .send()
                    .await;
                let status = r.status().as_u16();
                let v: Value = r.json();
                if (200..300).contains(&status) {
                    Ok(v)
                } else {
                    let e = v["error"].as_str().unwrap_or_default().to_string();
                    // Bad input is a 400; a write the store's own rules refuse is a 422.
                    let expected = if e.contains("refused the write") {
                        422
                    } else {
                        400
                    };
                    assert_eq!(status, expected, "{path}: {v}");
                    Err(e)
                }
            }
            Via::Cli => {
                let mut args: Vec<String> = cli.iter().map(|s| s.to_string()).collect();
                args.push(body.to_string());
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                let out = run(&self.url, &refs);
                if out.status.success() {
                    Ok(serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                        panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout))
                    }))
                } else {
                    Err(String::from_utf8_lossy(&out.stderr).to_string())
                }
            }
        }
    }

    /// GETs `path?query`, or runs `ms4 cli...`.
    async fn get(&self, path: &str, query: &[(&str, &str)], cli: &[&str]) -> String {
        match self.via {
            Via::Api => {
                let base = &self.server.as_ref().unwrap().base;
                let r = self
                    .server
                    .as_ref()
                    .unwrap()
                    .get(format!("{base}{path}"))
                    .query(query)
                    .bearer_auth(&self.token)
                    .send()
                    .await;
                assert_eq!(r.status().as_u16(), 200, "{path}");
                r.text()
            }
            Via::Cli => run_ok(&self.url, cli),
        }
    }

    async fn inspect(&self, body: Value) -> Result<Value, String> {
        self.post("/api/inspections", &["inspect"], body).await
    }
}

fn screening(asset: &str, on: &str, s: Value) -> Value {
    json!({"asset_id": asset, "inspected_on": on, "kind": "dry_weather_screening",
           "result": "done", "inspector": "Ann Field", "screening": s})
}

fn count<'a>(report: &'a Value, measure: &str) -> &'a Value {
    report["counts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["measure"] == measure)
        .unwrap_or_else(|| panic!("no {measure} in {report}"))
}

fn records(report: &Value, measure: &str) -> Vec<String> {
    count(report, measure)["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn deadline<'a>(d: &'a Value, rule: &str) -> &'a Value {
    d["deadlines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {d}"))
}

pub async fn scripted_year(kind: &str, via: Via) {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("idde").unwrap(),
    };
    super::town::build(dir.path(), &url);
    let (server, token) = match via {
        Via::Api => {
            let t = token(&url, "officer", "Ann Field", &[]);
            let store = ms4::store::open(&url).await.unwrap();
            (Some(App::new(&store).await), t)
        }
        Via::Cli => (None, String::new()),
    };
    let t = Town {
        via,
        url: url.clone(),
        server,
        token,
    };

    // Bad input, each a 400 (or a failed command) naming what is wrong.
    for (body, names) in [
        (
            screening("OF-2", "2026-05-04", json!({"field_tests": {"ph": 15}})),
            "screening.field_tests.ph",
        ),
        (
            screening(
                "OF-2",
                "2026-05-04",
                json!({"flow": "trickle", "odour": {"kind": "sewage", "severity": 4}}),
            ),
            "screening.odour.severity",
        ),
        (
            screening("CB-1", "2026-05-04", json!({"flow": "none"})),
            "asset_id",
        ),
    ] {
        let e = t.inspect(body).await.unwrap_err();
        assert!(e.contains(names), "{names}: {e}");
    }

    // 4 May: OF-2 screened 72 hours after rain, nothing flowing: a dry-weather screening.
    let a = t
        .inspect(screening(
            "OF-2",
            "2026-05-04",
            json!({"hours_since_rain": 72, "flow": "none",
            "conveyance": "closed_pipe", "material": "RCP", "shape": "circular", "width_in": 18,
            "submerged": "none", "characterisation": "unlikely"}),
        ))
        .await
        .unwrap();
    assert_eq!(a["inspection"]["dry_weather"], true, "{a}");
    assert!(a["case"].is_null(), "{a}");
    // 12 May: OF-1 only 20 hours after rain: kept, marked, not counted.
    let b = t
        .inspect(screening(
            "OF-1",
            "2026-05-12",
            json!({"hours_since_rain": 20, "flow": "trickle",
            "characterisation": "potential"}),
        ))
        .await
        .unwrap();
    assert_eq!(b["inspection"]["dry_weather"], false, "{b}");
    // 14 May: OF-1 after 96 hours, grey flow smelling of sewage: suspect, and a case opens.
    let c = t
        .inspect(screening("OF-1", "2026-05-14", json!({"hours_since_rain": 96, "air_temperature_f": 64,
            "flow": "trickle", "flow_rate_gpm": 0.5, "odour": {"kind": "sewage", "severity": 2},
            "colour": {"kind": "grey", "severity": 2}, "turbidity": {"kind": "cloudiness", "severity": 1},
            "floatables": "none", "deposits": "staining",
            "field_tests": {"ph": 7.1, "ammonia_mg_l": 1.8, "detergents_mg_l": 0.4, "temperature_f": 61},
            "lab_sample": {"sample_id": "LAB-2026-031"}, "characterisation": "suspect"})))
        .await
        .unwrap();
    assert_eq!(c["inspection"]["sewage_indicators"], true, "{c}");
    assert_eq!(c["case"]["case_id"], "CASE-2026-0001", "{c}");
    // The candidates, ranked: the two illicit connections first, the sewage line (not
    // stormwater) ahead of the shop's drain; the house's roof drain last.
    let cands: Vec<&str> = c["case"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["connection_id"].as_str().unwrap())
        .collect();
    assert_eq!(cands, ["C-SEW", "C-SHOP", "C-ROOF"], "{c}");
    assert_eq!(c["case"]["candidates"][0]["finding"], "illicit");
    assert_eq!(c["case"]["candidates"][1]["land_use_class"], "commercial");
    assert_eq!(c["case"]["candidates"][2]["finding"], "ok");
    let case = "CASE-2026-0001";
    let photos = format!(
        "/api/inspections/{}/photos",
        c["inspection"]["inspection_id"].as_str().unwrap()
    );

    // The screening's photo, kept with its checksum and served back (API only).
    if via == Via::Api {
        let base = &t.server.as_ref().unwrap().base;
        let bytes: Vec<u8> = b"\x89PNG\r\n\x1a\n fake but bytes are bytes".to_vec();
        let r = t
            .server
            .as_ref()
            .unwrap()
            .post(format!("{base}{photos}"))
            .bearer_auth(&t.token)
            .header("content-type", "image/png")
            .body(bytes.clone())
            .send()
            .await;
        assert_eq!(r.status().as_u16(), 201);
        let v: Value = r.json();
        let sha = v["sha256"].as_str().unwrap().to_string();
        assert_eq!(sha, ms4::store::photos::sha256_hex(&bytes));
        let list: Value = t
            .server
            .as_ref()
            .unwrap()
            .get(format!("{base}{photos}"))
            .bearer_auth(&t.token)
            .send()
            .await
            .json();
        assert_eq!(list["photos"][0]["sha256"], sha.as_str());
        let back = t
            .server
            .as_ref()
            .unwrap()
            .get(format!("{base}/api/photos/{sha}"))
            .bearer_auth(&t.token)
            .send()
            .await;
        assert_eq!(back.headers()["content-type"], "image/png");
        assert_eq!(back.bytes().to_vec(), bytes);
        let bad = t
            .server
            .as_ref()
            .unwrap()
            .post(format!("{base}{photos}"))
            .bearer_auth(&t.token)
            .header("content-type", "text/plain")
            .body("x")
            .send()
            .await;
        assert_eq!(bad.status().as_u16(), 400);
    }

    let act = |id: &str, body: Value| {
        let path = format!("/api/cases/{id}/actions");
        let id = id.to_string();
        let t = &t;
        async move {
            t.post(&path, &["case", "--format", "json", "action", &id], body)
                .await
        }
    };
    // An action the log does not know is refused, naming it.
    let e = act(
        case,
        json!({"kind": "coffee_break", "on": "2026-05-15", "by": "Town Engineer"}),
    )
    .await
    .unwrap_err();
    assert!(e.contains("kind") && e.contains("coffee_break"), "{e}");
    act(case, json!({"kind": "dye_test", "on": "2026-05-18", "by": "Town Engineer",
        "connection_id": "C-SEW", "outcome": "positive", "results": {"dye": "seen at OF-1 after 12 minutes"}}))
        .await
        .unwrap();
    // Thursday 21 May, 10:00: the Town Manager's written notice, certified and first-class
    // mail. Three business days for delivery: Fri 22; Sat 23, Sun 24 and Memorial Day
    // (Mon 25) skipped; Tue 26, Wed 27. The allowance is whole days: the 72 hours
    // commence when Wed 27 ends, Thu 28 May 00:00, and run to Sun 31 May 00:00 (the end
    // of Sat 30). Re-inspection within two business days after: Mon 1, Tue 2 June.
    act(case, json!({"kind": "written_notice", "on": "2026-05-21", "at": "10:00", "by": "Town Manager", "method": "mail"}))
        .await
        .unwrap();
    let d: Value = serde_json::from_str(
        &t.get(
            "/api/deadlines",
            &[("as_of", "2026-05-29T12:00")],
            &[
                "deadlines",
                "--as-of",
                "2026-05-29T12:00",
                "--format",
                "json",
            ],
        )
        .await,
    )
    .unwrap();
    let cd = &d["cases"][0];
    assert_eq!(cd["case_id"], case);
    let w = deadline(cd, "windsor.citation.written_notice_72h");
    assert_eq!(w["starts"], "2026-05-28T00:00:00", "{w}");
    assert_eq!(w["due_at"], "2026-05-31T00:00:00", "{w}");
    assert_eq!(w["status"], "due");
    let skipped: Vec<&str> = w["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        [
            "2026-05-23 (Saturday)",
            "2026-05-24 (Sunday)",
            "2026-05-25 (Memorial Day)"
        ]
    );
    let r = deadline(cd, "windsor.citation.reinspection_2bd");
    assert_eq!(r["due_on"], "2026-06-02", "{r}");
    assert_eq!(d["due"], 2);
    // As of Wed 3 June with no re-inspection logged both are overdue.
    let late: Value = serde_json::from_str(
        &t.get(
            "/api/deadlines",
            &[("as_of", "2026-06-03")],
            &["deadlines", "--as-of", "2026-06-03", "--format", "json"],
        )
        .await,
    )
    .unwrap();
    assert_eq!(late["overdue"], 2, "{late}");

    // Mon 1 June: re-inspected, not corrected; the citation by hand at 10:00.
    act(case, json!({"kind": "reinspection", "on": "2026-06-01", "at": "09:00", "by": "Town Engineer", "outcome": "not_corrected"}))
        .await
        .unwrap();
    act(case, json!({"kind": "citation_issued", "on": "2026-06-01", "at": "10:00", "by": "Town Manager", "method": "hand", "violations": 1}))
        .await
        .unwrap();
    // As of Thu 4 June 10:00: $250 at the citation and three further 24-hour periods at
    // $250 each = $1,000; the fine is due within 10 business days of 1 June: 15 June.
    let d: Value = serde_json::from_str(
        &t.get(
            "/api/deadlines",
            &[("as_of", "2026-06-04T10:00")],
            &[
                "deadlines",
                "--as-of",
                "2026-06-04T10:00",
                "--format",
                "json",
            ],
        )
        .await,
    )
    .unwrap();
    let cd = &d["cases"][0];
    assert_eq!(
        deadline(cd, "windsor.citation.reinspection_2bd")["status"],
        "met"
    );
    assert_eq!(
        deadline(cd, "windsor.citation.written_notice_72h")["status"],
        "overdue"
    );
    assert_eq!(deadline(cd, "windsor.fine_payment")["due_on"], "2026-06-15");
    assert_eq!(cd["accrued"], 1000.0, "{cd}");

    // Thu 4 June: the sewage line is cut and capped; the case closes as eliminated. The
    // continuing fine stops at the start of 4 June: 62 hours after the citation, two full
    // periods: $250 + 2 × $250 = $750.
    let close = |id: &str, body: Value| {
        let path = format!("/api/cases/{id}/close");
        let id = id.to_string();
        let t = &t;
        async move {
            t.post(&path, &["case", "--format", "json", "close", &id], body)
                .await
        }
    };
    // First with the connection's new status refused by the store (a rule another
    // program added): the case and the connection are one transaction, so the case
    // stays open and the connection keeps its status.
    let eliminated = json!({"closure": "eliminated", "on": "2026-06-04", "by": "Town Engineer",
        "notes": "sewage lateral cut and capped at the catch basin, dye test clean", "connection_id": "C-SEW"});
    let status_of_sew = |url: String| async move {
        let store = ms4::store::open(&url).await.unwrap();
        let conns = store
            .features(ms4::domain::Layer::Connections)
            .await
            .unwrap();
        let c = conns
            .iter()
            .find(|f| f.id == "C-SEW")
            .expect("C-SEW stored");
        format!("{:?}", c.get(ms4::domain::Layer::Connections, "status"))
    };
    let sew_before = status_of_sew(url.clone()).await;
    let refuse = match kind {
        "sqlite" => "CREATE TRIGGER refuse_removed_i BEFORE INSERT ON connections WHEN NEW.status = 'removed' \
             BEGIN SELECT RAISE(ABORT, 'removal is refused'); END; \
             CREATE TRIGGER refuse_removed_u BEFORE UPDATE ON connections WHEN NEW.status = 'removed' \
             BEGIN SELECT RAISE(ABORT, 'removal is refused'); END;",
        _ => "CREATE FUNCTION refuse_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF NEW.status = 'removed' THEN RAISE EXCEPTION 'removal is refused'; END IF; \
             RETURN NEW; END $$; \
             CREATE TRIGGER refuse_removed BEFORE INSERT OR UPDATE ON connections FOR EACH ROW \
             EXECUTE FUNCTION refuse_removed();",
    };
    shell_sql(kind, dir.path(), &url, refuse);
    let refused = close(case, eliminated.clone()).await.unwrap_err();
    assert!(refused.contains("removal is refused"), "{refused}");
    let still = t
        .get(
            &format!("/api/cases/{case}"),
            &[],
            &["case", "--format", "json", "show", case],
        )
        .await;
    let still: Value = serde_json::from_str(&still).unwrap();
    assert_eq!(
        still["status"], "open",
        "{kind} {via:?}: the case closed without its connection"
    );
    assert_eq!(
        status_of_sew(url.clone()).await,
        sew_before,
        "{kind} {via:?}"
    );
    shell_sql(
        kind,
        dir.path(),
        &url,
        match kind {
            "sqlite" => "DROP TRIGGER refuse_removed_i; DROP TRIGGER refuse_removed_u;",
            _ => "DROP TRIGGER refuse_removed ON connections; DROP FUNCTION refuse_removed();",
        },
    );
    let closed = close(case, json!({"closure": "eliminated", "on": "2026-06-04", "by": "Town Engineer",
        "notes": "sewage lateral cut and capped at the catch basin, dye test clean", "connection_id": "C-SEW"}))
        .await
        .unwrap();
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["deadlines"]["accrued"], 750.0, "{closed}");
    // Closing it again is refused, naming the case.
    let e = close(
        case,
        json!({"closure": "unfounded", "on": "2026-06-05", "by": "x", "notes": "y"}),
    )
    .await
    .unwrap_err();
    assert!(e.contains(case) && e.contains("already closed"), "{e}");
    // And a closed case takes no more actions.
    let e = act(
        case,
        json!({"kind": "site_visit", "on": "2026-06-05", "by": "Town Engineer"}),
    )
    .await
    .unwrap_err();
    assert!(e.contains(case) && e.contains("no more actions"), "{e}");
    // The connection's record says removed, and the audit has it.
    let store = ms4::store::open(&url).await.unwrap();
    let conns = store
        .features(ms4::domain::Layer::Connections)
        .await
        .unwrap();
    let sew = conns.iter().find(|c| c.id == "C-SEW").unwrap();
    assert_eq!(
        sew.get(ms4::domain::Layer::Connections, "status").as_str(),
        Some("removed")
    );
    let audit = store
        .audit(Some(ms4::domain::Layer::Connections), 5)
        .await
        .unwrap();
    assert!(
        audit
            .iter()
            .any(|a| a.feature_id.as_deref() == Some("C-SEW") && a.action == "update"),
        "{audit:?}"
    );
    let case_audit = store
        .audit(Some(ms4::domain::Layer::Cases), 50)
        .await
        .unwrap();
    assert!(
        case_audit
            .iter()
            .filter(|a| a.feature_id.as_deref() == Some(case))
            .count()
            >= 6,
        "{case_audit:?}"
    );

    // 1 July: a hotline call at OF-2, opened by hand and found unfounded.
    let e = t
        .post(
            "/api/cases",
            &["case", "--format", "json", "open"],
            json!({"origin": "hotline", "opened_on": "2026-07-01", "asset_id": "OF-2"}),
        )
        .await
        .unwrap_err();
    assert!(e.contains("reported_by"), "{e}");
    let h = t.post("/api/cases", &["case", "--format", "json", "open"], json!({"origin": "hotline", "opened_on": "2026-07-01",
        "asset_id": "OF-2", "reported_by": "a resident, by telephone", "description": "milky water in the brook"}))
        .await
        .unwrap();
    assert_eq!(h["case_id"], "CASE-2026-0002");
    close("CASE-2026-0002", json!({"closure": "unfounded", "on": "2026-07-02", "by": "Town Engineer", "notes": "clear flow, no odour"}))
        .await
        .unwrap();

    report::the_year_in_the_report(&t, case, dir.path()).await;
}
