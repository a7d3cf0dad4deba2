//! Conditions One, Two and Three (§ 156-81C in Carmel's text): whether the project's
//! place and size bring on the post-construction requirements.

use super::*;

/// Closes a Condition finding: outside Article X nothing is met, whatever the evidence.
fn close(f: &mut Finding<Option<bool>>, met: Option<bool>, outside: Option<&str>, name: &str) {
    match outside {
        Some(why) if met != Some(false) => {
            f.because(format!(
                "whatever the evidence says of {name}, {name} covers only non-exempt land development activities, and {why}"
            ));
            f.result = Some(false);
        }
        Some(why) => {
            f.because(format!(
                "{name} covers only non-exempt land development activities, and {why}"
            ));
            f.result = Some(false);
        }
        None => f.result = met,
    }
}

/// § 156-81C(1): runoff discharging a pollutant of concern to a 303(d)-listed water or a
/// TMDL watershed whose TMDL names stormwater as a source.
pub(in crate::rules::determine) fn condition_one(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
) -> Finding<Option<bool>> {
    let skeleton = condition_one_skeleton(cx);
    condition_one_from(cx, outside, skeleton)
}

/// Condition One's finding before any water is weighed: its citations and the readings it
/// rests on, the same at every place (a screen of every parcel builds it once).
pub(in crate::rules::determine) fn condition_one_skeleton(cx: &Ctx<'_>) -> Finding<Option<bool>> {
    cx.finding(
        None,
        &[cx.id(C1), cx.id(POC)],
        &["AMB-07", "AMB-08", "AMB-09", "AMB-30"],
    )
}

/// Condition One from its skeleton ([`condition_one_skeleton`]), at the place of `cx`'s
/// water evidence.
pub(in crate::rules::determine) fn condition_one_from(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    mut f: Finding<Option<bool>>,
) -> Finding<Option<bool>> {
    let water = cx.water;
    // AMB-08 "literal": sediment is always a pollutant of concern and always in
    // construction runoff, so any listing counts; "matched": only a listed pollutant the
    // project discharges, of which the facts know only the sediment class.
    let literal = cx.profile.reading::<PollutantOfConcern>() == PollutantOfConcern::Literal;
    // AMB-09 "tmdl_only": the stormwater-source qualifier attaches to TMDL watersheds only.
    let tmdl_only =
        cx.profile.reading::<StormwaterSourceScope>() == StormwaterSourceScope::TmdlOnly;
    let mut hits: Vec<String> = Vec::new();
    // Unknowns that would decide Condition One if nothing else meets it.
    let mut pending: Vec<String> = Vec::new();

    listed_waters(&mut f, water, literal, tmdl_only, &mut hits, &mut pending);
    tmdl_watersheds(&mut f, water, literal, &mut hits, &mut pending);
    cycle_notes_and_review(&mut f, water, &mut pending);
    let met = decide_condition_one(&mut f, water, &hits, &mut pending);
    if met != Some(true) && outside.is_none() {
        for fact in pending {
            cx.open(fact);
        }
    }
    close(&mut f, met, outside, "Condition One");
    f
}

/// The 303(d)-listed waters reached: each a hit, or an open fact under the profile's
/// readings (AMB-08, AMB-09).
fn listed_waters(
    f: &mut Finding<Option<bool>>,
    water: &WaterEvidence,
    literal: bool,
    tmdl_only: bool,
    hits: &mut Vec<String>,
    pending: &mut Vec<String>,
) {
    for w in &water.waters_303d {
        f.evidence.push(water_evidence(w));
        let label = format!("303(d)-listed water {} ({})", w.name, w.water_id);
        if !literal && !w.pollutants.iter().any(|p| is_sediment_class(p)) {
            f.because(format!(
                "{label} is listed for {}, none of them sediment; under the profile's matched reading (AMB-08) it counts only if the project's runoff carries a listed pollutant, which was not given",
                and_list(&w.pollutants)
            ));
            pending.push(format!(
                "pollutants expected in the project's runoff (for {})",
                w.water_id
            ));
            continue;
        }
        if !tmdl_only {
            f.because(format!(
                "{label}: the profile applies the stormwater-source qualifier to 303(d) waters too (AMB-09), and whether the listing names stormwater as a source was not given"
            ));
            pending.push(format!(
                "whether the 303(d) listing of {} names stormwater as a source",
                w.water_id
            ));
            continue;
        }
        hits.push(format!(
            "{label}, listed for {}, reached by {}",
            and_list(&w.pollutants),
            w.reached_by
        ));
    }
}

/// The TMDL areas overlapped or reached: a hit when the TMDL names stormwater as a
/// source, else not counted or open.
fn tmdl_watersheds(
    f: &mut Finding<Option<bool>>,
    water: &WaterEvidence,
    literal: bool,
    hits: &mut Vec<String>,
    pending: &mut Vec<String>,
) {
    for t in &water.tmdl_areas {
        f.evidence.extend(tmdl_evidence(t));
        let label = format!("TMDL area {} ({})", t.tmdl_id, t.pollutant);
        let how = match &t.reached_by {
            Some(how) => how.clone(),
            None if t.overlap.value <= 0.0 => {
                f.because(format!(
                    "{label} touches the footprint without overlapping it; not counted"
                ));
                continue;
            }
            None => format!("overlapping {} of the footprint", overlap_words(t.overlap)),
        };
        if !literal && !is_sediment_class(&t.pollutant) {
            f.because(format!(
                "{label}: under the profile's matched reading (AMB-08) it counts only if the project's runoff carries {}, which was not given",
                t.pollutant
            ));
            pending.push(format!(
                "pollutants expected in the project's runoff (for {})",
                t.tmdl_id
            ));
            continue;
        }
        match t.stormwater_source {
            Some(true) => hits.push(format!(
                "{label}, a TMDL watershed for which pollutants in stormwater are identified as a source, {how}"
            )),
            Some(false) => {
                f.because(format!(
                    "{label} does not identify pollutants in stormwater as a source of the impairment, which Condition One requires of a TMDL watershed (AMB-09); not counted"
                ));
            }
            None => {
                f.because(format!(
                    "the record of {label} does not say whether pollutants in stormwater are a source of the impairment; Condition One requires that of a TMDL watershed (AMB-09), so it is not counted until the TMDL is checked"
                ));
                pending.push(format!(
                    "whether TMDL {} identifies stormwater as a source",
                    t.tmdl_id
                ));
            }
        }
    }
}

/// The list cycle the listings come from (AMB-30), the waters' notes, and what is for
/// review (each an open fact).
fn cycle_notes_and_review(
    f: &mut Finding<Option<bool>>,
    water: &WaterEvidence,
    pending: &mut Vec<String>,
) {
    if !water.waters_303d.is_empty() {
        match &water.list_cycle {
            Some(cycle) => {
                f.because(format!(
                    "the 303(d) listings are those of the {cycle} list cycle (AMB-30)"
                ));
                f.evidence.push(Evidence::Fact {
                    text: format!("303(d) list cycle used: {cycle}"),
                });
            }
            None => {
                f.because("the impairment records name no 303(d) list cycle; the listings used are shown (AMB-30)");
            }
        }
    }
    for d in &water.notes {
        f.because(d.clone());
    }
    for r in &water.review {
        f.because(format!("for review: {r}"));
        pending.push(format!("review: {r}"));
    }
}

/// Whether Condition One is met: yes on a hit, undetermined when nothing is reached or
/// facts are open, else no.
fn decide_condition_one(
    f: &mut Finding<Option<bool>>,
    water: &WaterEvidence,
    hits: &[String],
    pending: &mut Vec<String>,
) -> Option<bool> {
    let nothing_reached = water.waters_303d.is_empty()
        && water.tmdl_areas.is_empty()
        && water.waters_reached.is_empty()
        && water.review.is_empty();
    let met = if !hits.is_empty() {
        f.because(format!(
            "the runoff carries sediment, always a pollutant of concern, to {}",
            and_list(hits)
        ));
        Some(true)
    } else if nothing_reached {
        f.because("undetermined: the footprint overlaps no watershed that drains to a recorded water and no trace from it reaches a water, so the evidence cannot say where its runoff goes; missing evidence is not a 'no'. A watershed with its drains_to, or a trace to an outfall with its receiving water, would decide it");
        pending.push("the receiving water of the project's runoff (no watershed overlapped and no trace reached a water)".to_string());
        None
    } else if !pending.is_empty() {
        f.because("undetermined: nothing found meets Condition One yet, and the open facts could");
        None
    } else {
        f.because(format!(
            "none of the waters and TMDL areas found meets Condition One (waters reached: {})",
            if water.waters_reached.is_empty() {
                "none besides those listed".to_string()
            } else {
                and_list(&water.waters_reached)
            }
        ));
        Some(false)
    };
    met
}

/// § 156-81C(2): five or more acres, with no exclusions.
pub(super) fn condition_two(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Option<bool>> {
    let mut f = cx.finding(None, &[cx.id(C2)], &["AMB-10"]);
    f.evidence = cx.area_evidence();
    let (met, reason) = cx.meets_or_not("condition_two", "Condition Two");
    f.because(reason);
    if met && (cx.facts.single_family == Some(true) || cx.facts.agricultural == Some(true)) {
        f.assume(cx.profile, "AMB-11");
        f.because("the single-family residence and agricultural property exclusions belong to Condition Three only; Condition Two has none");
    }
    close(&mut f, Some(met), outside, "Condition Two");
    f
}

/// § 156-81C(3): one to five acres, except single-family residences and agricultural
/// properties.
pub(super) fn condition_three(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Option<bool>> {
    let facts = cx.facts;
    let mut f = cx.finding(None, &[cx.id(C3)], &["AMB-10", "AMB-11"]);
    f.evidence = cx.area_evidence();
    let (above, low) = cx.meets_or_not("condition_three_min", "Condition Three lower");
    let (below, high) = cx.meets_or_not("condition_three_max", "Condition Three upper");
    f.because(low);
    f.because(high);
    let in_range = above && below;
    let mut met = Some(in_range);
    if in_range && facts.single_family == Some(true) {
        met = Some(false);
        f.because("excluded: construction of a single-family residence ('exclusive of the construction of single-family residences')");
    }
    if in_range && facts.agricultural == Some(true) {
        met = Some(false);
        f.because("excluded: construction activities at an agricultural property ('and construction activities at agricultural properties')");
    }
    if in_range && met == Some(true) {
        // Neither exclusion was given as true: met only when both were given as false.
        let unknown: Vec<&str> = [
            (
                facts.single_family,
                "whether it is the construction of a single-family residence",
            ),
            (
                facts.agricultural,
                "whether it is construction at an agricultural property",
            ),
        ]
        .into_iter()
        .filter(|(given, _)| given.is_none())
        .map(|(_, what)| what)
        .collect();
        if unknown.is_empty() {
            f.because("neither exclusion applies: given as not a single-family residence and not an agricultural property");
        } else {
            met = None;
            for what in &unknown {
                cx.open(format!("Condition Three exclusion: {what}"));
            }
            f.because(format!(
                "undetermined: in the one-to-five-acre range, but {} was not given (--single-family / --agricultural, true or false)",
                unknown.join(" nor ")
            ));
        }
    }
    close(&mut f, met, outside, "Condition Three");
    f
}
