//! The planner's determination: is a project a land development activity, is it exempt,
//! which of Carmel's Conditions One, Two and Three it meets, and what follows from that.
//!
//! Pure code. The spatial side measures the footprint, traces the drainage network and
//! intersects the TMDL areas; it hands the results over as plain facts ([`ProjectFacts`])
//! and evidence ([`WaterEvidence`]). [`determine`] reads every threshold, inspection
//! interval, citation and ambiguity reading from the jurisdiction's [`Profile`], so an
//! answer always says which rule decided it, where the law says so, what it was decided on
//! and which reading of an ambiguous text was taken.
//!
//! The law differs by town, and so does the shape of the answer:
//! - **Carmel, NY** (§§ 156-80 to 156-89): land development activity at 5,000 sq ft or, at
//!   any size under one acre, as part of a larger common plan; Conditions One, Two and Three
//!   trigger post-construction controls, storm-triggered inspections and easements.
//! - **North Castle, NY** (ch. 267): land development activity at 5,000 sq ft; no
//!   Conditions; the construction general permit (external) decides post-construction and
//!   enhanced phosphorus design, so the registry reports what the evidence *indicates*.
//! - **Windsor, CT**: the supplied article has no land development rules at all
//!   (`not_covered`); its 0.5-acre construction-activity figure scopes premises inspections.
//!
//! A fact the caller does not know is `None`; when the answer turns on it, the finding says
//! so and the fact is listed in [`Determination::open_facts`].

use std::sync::Arc;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::finding::{Citation, Finding};
use super::profile::{InspectionInterval, LandDevelopmentFamily, Profile};
use super::quantity::square_feet;
use crate::domain::Area;
use context::Ctx;

mod conditions;
mod context;
mod discharge_only;
mod general_permit;

/// What the planner knows about a proposed project. The disturbed area is the whole
/// project's clearing, grading, excavating, filling or other soil disturbance, over all
/// phases (AMB-10).
///
/// Every fact a rule reads is here, and every fact but the area is tri-state: `Some(true)`
/// (given true), `Some(false)` (given false) or `None` (not given). A fact not given is
/// never taken as false where it would decide an answer: the answer lists it as not
/// evaluated, for want of facts, or turns on it (`depends`) and lists it in
/// [`Determination::open_facts`]; so do the two Condition Three exclusions
/// (`single_family`, `agricultural`): not given, Condition Three is undetermined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectFacts {
    /// Total land disturbed by the project.
    pub disturbed: Area,
    /// Construction of a single-family residence (Carmel Condition Three exclusion; AMB-11
    /// reads it as one residence on its own lot). Not given, Condition Three is
    /// undetermined between one and five acres.
    #[serde(default)]
    pub single_family: Option<bool>,
    /// Construction activities at an agricultural property (Carmel Condition Three
    /// exclusion). This is not the "agricultural activity" exemption: see
    /// [`ProjectFacts::agricultural_activity`]. Not given, Condition Three is undetermined
    /// between one and five acres.
    #[serde(default)]
    pub agricultural: Option<bool>,
    /// Part of a larger common plan of development or sale. Not given, an answer it could
    /// change turns on it: Carmel's definition reaches a plan's activity under 5,000 sq ft,
    /// and the construction general permit counts the plan's whole disturbance.
    #[serde(default)]
    pub larger_common_plan: Option<bool>,
    /// The activity is itself "agricultural activity" as Carmel and North Castle define it:
    /// the activity of an active farm (grazing, crops, timber for sale), not the
    /// construction of new agricultural structures. Exempt in Carmel only (§ 156-80).
    #[serde(default)]
    pub agricultural_activity: Option<bool>,
    /// Silvicultural activity (Carmel § 156-80: exempt "except landing areas and log haul
    /// roads"). North Castle has no such exemption.
    #[serde(default)]
    pub silviculture: Option<bool>,
    /// Routine maintenance performed to maintain the original line and grade, hydraulic
    /// capacity or original purpose of a facility (North Castle § 267-4B: not a land
    /// development activity; Carmel § 156-80: exempt under five acres).
    #[serde(default)]
    pub routine_maintenance: Option<bool>,
    /// The date the plat of the subdivision the project is part of was approved (signed),
    /// if it is part of one (Carmel: on or before December 17, 2008; North Castle: on or
    /// before the chapter's effective date).
    #[serde(default)]
    pub plat_approved_on: Option<NaiveDate>,
    /// The date a building permit for the project was approved, if one was.
    #[serde(default)]
    pub building_permit_approved_on: Option<NaiveDate>,
    /// North Castle § 267-3C(5): the project was physically completed before the chapter's
    /// effective date.
    #[serde(default)]
    pub completed_before_effective_date: Option<bool>,
    /// North Castle § 267-3C(6): the project was approved before the chapter's effective
    /// date (it may continue under the Town's present regulations unless expanded,
    /// changed, enlarged, altered, discontinued for 12 months or destroyed).
    #[serde(default)]
    pub approved_before_effective_date: Option<bool>,
    /// North Castle: any part of the site lies in the New York City East of Hudson
    /// Watershed (the construction general permit's 5,000 sq ft trigger).
    #[serde(default)]
    pub in_nyc_east_of_hudson_watershed: Option<bool>,
    /// An approval for the project will have a stormwater management facility as one of
    /// its requirements (the maintenance easement and agreement trigger).
    #[serde(default)]
    pub requires_stormwater_management_facility: Option<bool>,
    /// Windsor: the activity is subject to an NPDES or CT DEP construction permit or a
    /// Windsor erosion and sediment control permit, which makes it construction activity
    /// whatever its size.
    #[serde(default)]
    pub construction_permit: Option<bool>,
    /// North Castle: outcomes of the SPDES construction general permit, as a reviewer
    /// entered them (AMB-13).
    #[serde(default)]
    pub gp: GpDeterminations,
}

impl ProjectFacts {
    /// Facts for a project disturbing `disturbed`, with every other fact not given (the
    /// two Condition Three switches off).
    pub fn new(disturbed: Area) -> Self {
        ProjectFacts {
            disturbed,
            single_family: None,
            agricultural: None,
            larger_common_plan: None,
            agricultural_activity: None,
            silviculture: None,
            routine_maintenance: None,
            plat_approved_on: None,
            building_permit_approved_on: None,
            completed_before_effective_date: None,
            approved_before_effective_date: None,
            in_nyc_east_of_hudson_watershed: None,
            requires_stormwater_management_facility: None,
            construction_permit: None,
            gp: GpDeterminations::default(),
        }
    }
}

/// What the SPDES General Permit for Construction Activities says about a North Castle
/// project. Chapter 267 defers to the permit; the registry does not encode it (AMB-13), so
/// a reviewer enters these, and `None` means "not entered".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpDeterminations {
    /// The project needs coverage under the permit.
    #[serde(default)]
    pub coverage: Option<bool>,
    /// The permit identifies the project as needing post-construction SMPs.
    #[serde(default)]
    pub post_construction: Option<bool>,
    /// The permit requires the Enhanced Phosphorus Removal Standards.
    #[serde(default)]
    pub enhanced_phosphorus: Option<bool>,
}

/// The impaired waters and TMDL areas the spatial side found for the project's footprint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WaterEvidence {
    /// 303(d)-listed waters that receive the project's runoff.
    #[serde(default)]
    pub waters_303d: Vec<ListedWater>,
    /// TMDL areas the footprint overlaps.
    #[serde(default)]
    pub tmdl_areas: Vec<TmdlOverlap>,
    /// Every receiving water the runoff was found to reach, listed or not, by either
    /// method (watershed above the sliver setting, or a trace), and downstream of those.
    /// Empty, with no listed water and no TMDL area, means the evidence found no receiving
    /// water at all: Condition One is then undetermined, not "not met".
    #[serde(default)]
    pub waters_reached: Vec<String>,
    /// Reaches that need a reviewer before they count either way (e.g. a watershed
    /// overlapped only by a sliver below the profile's setting, AMB-07), one sentence each.
    #[serde(default)]
    pub review: Vec<String>,
    /// The 303(d) list cycle the listings were read from (AMB-30), when the impairments
    /// record one.
    #[serde(default)]
    pub list_cycle: Option<String>,
    /// How the evidence was read, in words: how far downstream the waters were followed
    /// (AMB-07), listings set aside (an explicit `listed_303d = false`, another cycle).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A 303(d)-listed water that receives the project's runoff, and how it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedWater {
    /// The water's id (e.g. a NYSDEC waterbody id).
    pub water_id: String,
    /// Its name.
    pub name: String,
    /// The listed causes of impairment.
    pub pollutants: Vec<String>,
    /// How the runoff reaches it, e.g. `watershed WS-3 (62.0% of the footprint) drains to
    /// it` or `trace CB-12 → P-88 → OF-4`.
    pub reached_by: String,
}

/// A TMDL area that the project's footprint overlaps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TmdlOverlap {
    /// The TMDL's id.
    pub tmdl_id: String,
    /// The TMDL's pollutant.
    pub pollutant: String,
    /// Whether the TMDL identifies pollutants in stormwater as a source of the impairment;
    /// `None` when the record does not say.
    #[serde(default)]
    pub stormwater_source: Option<bool>,
    /// Area of the footprint inside the TMDL area.
    pub overlap: Area,
    /// How the TMDL is reached when not by overlap (it names a water the runoff reaches).
    #[serde(default)]
    pub reached_by: Option<String>,
}

/// The answer for one project in one jurisdiction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Determination {
    /// The profile id, e.g. `carmel-ny`.
    pub jurisdiction: String,
    /// Whether the project is a land development activity under the law: `None` when it
    /// turns on a fact still open (whether it is part of a larger common plan, or the
    /// plan's total disturbance), listed in `open_facts`.
    pub land_development_activity: Finding<Option<bool>>,
    /// Whether an exemption the facts can decide applies: `Some(true)` exempt,
    /// `Some(false)` not exempt on the facts given (the exemptions whose facts were not
    /// given are listed in the reasons as not evaluated), `None` when one turns on a fact
    /// still open (the law's unconfirmed effective date, AMB-14), listed in `open_facts`.
    pub exempt: Finding<Option<bool>>,
    /// Carmel's Conditions One, Two and Three; `None` where the law has none.
    pub conditions: Option<Conditions>,
    /// Where the law has no Conditions (North Castle, Windsor): says so, with the rule
    /// (result `true`). `None` where `conditions` is set.
    pub conditions_absent: Option<Finding<bool>>,
    /// What follows, one finding per obligation the law has, whatever its status. Shared:
    /// a project tried on many places (a [`Determiner`]) has the same requirements at every
    /// place where Condition One comes out the same, and copying them for each place was
    /// most of the cost of its determination.
    pub requirements: Arc<Vec<Finding<Requirement>>>,
    /// True when the law has no land development rules at all (Windsor).
    pub not_covered: bool,
    /// Facts the caller left unknown on which some finding turns.
    pub open_facts: Vec<String>,
}

impl Determination {
    /// The requirement of `kind`, if the jurisdiction has one.
    pub fn requirement(&self, kind: RequirementKind) -> Option<&Finding<Requirement>> {
        self.requirements.iter().find(|r| r.result.kind == kind)
    }

    /// Every finding's name with its citations, in answer order, e.g. to check that each
    /// one cites a rule.
    pub fn citations(&self) -> Vec<(String, &[Citation])> {
        let mut all: Vec<(String, &[Citation])> = vec![
            (
                "land_development_activity".to_string(),
                &self.land_development_activity.citations,
            ),
            ("exempt".to_string(), &self.exempt.citations),
        ];
        if let Some(c) = &self.conditions {
            all.push(("condition_one".to_string(), &c.condition_one.citations));
            all.push(("condition_two".to_string(), &c.condition_two.citations));
            all.push(("condition_three".to_string(), &c.condition_three.citations));
        }
        if let Some(f) = &self.conditions_absent {
            all.push(("conditions_absent".to_string(), &f.citations));
        }
        for r in self.requirements.iter() {
            all.push((r.result.kind.as_str().to_string(), &r.citations));
        }
        all
    }
}

/// Carmel § 156-81C: the three Conditions that call for post-construction controls. Each
/// result is `Some(true)` (met), `Some(false)` (not met) or `None` (undetermined: the
/// evidence cannot decide it; the reasons say what would, and the open facts list it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conditions {
    /// Runoff discharges a pollutant of concern to a 303(d) water or a TMDL watershed.
    pub condition_one: Finding<Option<bool>>,
    /// Five or more acres disturbed.
    pub condition_two: Finding<Option<bool>>,
    /// One to five acres, except single-family residences and agricultural properties.
    pub condition_three: Finding<Option<bool>>,
}

impl Conditions {
    /// Whether any Condition is met: `Some(true)` if one is, `None` if none is but one is
    /// undetermined, `Some(false)` if none is.
    pub fn any(&self) -> Option<bool> {
        let all = [
            self.condition_one.result,
            self.condition_two.result,
            self.condition_three.result,
        ];
        if all.contains(&Some(true)) {
            Some(true)
        } else if all.contains(&None) {
            None
        } else {
            Some(false)
        }
    }
}

/// An obligation that may follow from the determination.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirement {
    /// Which obligation.
    pub kind: RequirementKind,
    /// Whether it applies to this project.
    pub status: RequirementStatus,
    /// What it asks, in one sentence.
    pub summary: String,
    /// Inspection intervals from the profile, for inspection duties.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<InspectionInterval>,
}

/// The obligations the determination reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequirementKind {
    /// A SWPPP before any review of the application.
    Swppp,
    /// North Castle: NYSDEC forms and certifications for construction general permit
    /// coverage.
    ConstructionGeneralPermit,
    /// Post-construction water quantity and quality controls.
    PostConstructionControls,
    /// Carmel Condition One: SWPPP prepared, signed and certified by a landscape
    /// architect, certified professional or professional engineer.
    ConditionOnePreparerCertification,
    /// Erosion and sediment control inspections during construction.
    ConstructionInspections,
    /// North Castle: Enhanced Phosphorus Removal Standards.
    EnhancedPhosphorus,
    /// A maintenance easement before an approval that requires a stormwater management
    /// facility.
    MaintenanceEasement,
    /// A recorded maintenance agreement before final plan approval (or dedication).
    MaintenanceAgreement,
    /// Windsor: land development rules, which the supplied article does not have.
    LandDevelopmentRules,
    /// Windsor: the Town Engineer's inspection and monitoring of premises with stormwater
    /// discharges associated with construction activity.
    PremisesInspection,
    /// Carmel § 156-83C: the applicant or developer (or representative) on site whenever
    /// construction or grading takes place, inspecting erosion and sediment controls.
    ApplicantOnSite,
    /// North Castle § 267-7A(4): at least one trained contractor on site daily while soil
    /// is disturbed.
    TrainedContractorOnSite,
    /// Not more than five acres disturbed at any one time unless an approved SWPPP allows
    /// more (Carmel § 156-81B(4), North Castle § 267-5D(1)(d)).
    DisturbanceAtOneTime,
    /// Every contractor and subcontractor signs the certification statement before any
    /// land development activity (Carmel § 156-81F, North Castle § 267-5F).
    ContractorCertification,
    /// A copy of the SWPPP kept on site from the start of construction to final
    /// stabilization (Carmel § 156-81G, North Castle § 267-5G).
    SwpppOnSite,
    /// All other applicable environmental permits acquired before approval of the final
    /// stormwater design plan (Carmel § 156-81E, North Castle § 267-5E).
    OtherPermits,
    /// Notice at least 48 hours before each construction milestone, as the SMO requires.
    MilestoneNotices,
    /// After an inspection finds a violation, no further work except site stabilization
    /// until it is corrected and approved.
    StabilizationOnlyAfterViolation,
    /// Sediment removed from sediment traps and ponds when their design capacity is
    /// reduced by 50%.
    SedimentRemoval,
    /// As-built plans of the site's stormwater management practices, certified by a
    /// professional engineer.
    AsBuiltPlans,
    /// North Castle § 267-7A(6): inspections of post-construction practices with
    /// structural components by a New York State licensed professional engineer.
    StructuralPracticeInspections,
    /// Post-construction operation and maintenance: a preventive/corrective maintenance
    /// program and written procedures (Carmel § 156-84, North Castle § 267-7C).
    OperationAndMaintenance,
    /// Fees for services: the Town may charge reasonable costs of SWPPP review,
    /// inspections and SMP maintenance (Carmel § 156-89, North Castle's fee subsection).
    Fees,
}

impl RequirementKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            RequirementKind::Swppp => "swppp",
            RequirementKind::ConstructionGeneralPermit => "construction_general_permit",
            RequirementKind::PostConstructionControls => "post_construction_controls",
            RequirementKind::ConditionOnePreparerCertification => {
                "condition_one_preparer_certification"
            }
            RequirementKind::ConstructionInspections => "construction_inspections",
            RequirementKind::EnhancedPhosphorus => "enhanced_phosphorus",
            RequirementKind::MaintenanceEasement => "maintenance_easement",
            RequirementKind::MaintenanceAgreement => "maintenance_agreement",
            RequirementKind::LandDevelopmentRules => "land_development_rules",
            RequirementKind::PremisesInspection => "premises_inspection",
            RequirementKind::ApplicantOnSite => "applicant_on_site",
            RequirementKind::TrainedContractorOnSite => "trained_contractor_on_site",
            RequirementKind::DisturbanceAtOneTime => "disturbance_at_one_time",
            RequirementKind::ContractorCertification => "contractor_certification",
            RequirementKind::SwpppOnSite => "swppp_on_site",
            RequirementKind::OtherPermits => "other_permits",
            RequirementKind::MilestoneNotices => "milestone_notices",
            RequirementKind::StabilizationOnlyAfterViolation => {
                "stabilization_only_after_violation"
            }
            RequirementKind::SedimentRemoval => "sediment_removal",
            RequirementKind::AsBuiltPlans => "as_built_plans",
            RequirementKind::StructuralPracticeInspections => "structural_practice_inspections",
            RequirementKind::OperationAndMaintenance => "operation_and_maintenance",
            RequirementKind::Fees => "fees",
        }
    }

    /// The name in words, for people: `Post-construction controls`.
    pub fn title(self) -> &'static str {
        match self {
            RequirementKind::Swppp => "SWPPP",
            RequirementKind::ConstructionGeneralPermit => "Construction general permit",
            RequirementKind::PostConstructionControls => "Post-construction controls",
            RequirementKind::ConditionOnePreparerCertification => {
                "Condition One preparer certification"
            }
            RequirementKind::ConstructionInspections => "Construction inspections",
            RequirementKind::EnhancedPhosphorus => "Enhanced phosphorus removal",
            RequirementKind::MaintenanceEasement => "Maintenance easement",
            RequirementKind::MaintenanceAgreement => "Maintenance agreement",
            RequirementKind::LandDevelopmentRules => "Land development rules",
            RequirementKind::PremisesInspection => "Premises inspection",
            RequirementKind::ApplicantOnSite => "Applicant on site",
            RequirementKind::TrainedContractorOnSite => "Trained contractor on site",
            RequirementKind::DisturbanceAtOneTime => "Five acres at one time",
            RequirementKind::ContractorCertification => "Contractor certification",
            RequirementKind::SwpppOnSite => "SWPPP kept on site",
            RequirementKind::OtherPermits => "Other permits",
            RequirementKind::MilestoneNotices => "48-hour milestone notices",
            RequirementKind::StabilizationOnlyAfterViolation => {
                "Stabilization only after a violation"
            }
            RequirementKind::SedimentRemoval => "Sediment removal at 50%",
            RequirementKind::AsBuiltPlans => "PE-certified as-built plans",
            RequirementKind::StructuralPracticeInspections => "PE inspection of structural SMPs",
            RequirementKind::OperationAndMaintenance => "Operation and maintenance",
            RequirementKind::Fees => "Fees for services",
        }
    }
}

/// Whether an obligation applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequirementStatus {
    /// The law requires it on these facts.
    Applies,
    /// The evidence points to it, but an external permit decides (North Castle's
    /// construction general permit, AMB-13).
    Indicated,
    /// It turns on a fact the caller did not give; the reasons say which.
    Depends,
    /// The law lets the Town require it ("may require"); whether it does is the Town's
    /// decision, not a fact of the project.
    MayBeRequired,
    /// It does not apply on these facts.
    DoesNotApply,
    /// The law has no such rule.
    NotCovered,
}

impl RequirementStatus {
    /// The status in words: `applies`, `depends`, `may be required`.
    pub fn words(self) -> &'static str {
        match self {
            RequirementStatus::Applies => "applies",
            RequirementStatus::Indicated => "indicated",
            RequirementStatus::Depends => "depends",
            RequirementStatus::MayBeRequired => "may be required",
            RequirementStatus::DoesNotApply => "does not apply",
            RequirementStatus::NotCovered => "not covered",
        }
    }
}

/// Decides what `profile`'s law says about a project: its land development family
/// (`[family] land_development`) picks the code, and its data (thresholds, roles, readings,
/// citations) everything that differs between towns of that family.
pub fn determine(profile: &Profile, facts: &ProjectFacts, water: &WaterEvidence) -> Determination {
    let mut cx = Ctx {
        profile,
        facts,
        water,
        sqft: square_feet(facts.disturbed),
        open_facts: Vec::new(),
    };
    let mut d = match profile.family.land_development {
        LandDevelopmentFamily::NyConditions => conditions::determine(&mut cx),
        LandDevelopmentFamily::NyGeneralPermit => general_permit::determine(&mut cx),
        LandDevelopmentFamily::IllicitDischargeOnly => discharge_only::determine(&mut cx),
    };
    pending_reach(&mut d);
    d
}

/// What the law's reach over a project still turns on, when an open fact decides it.
#[derive(Debug, Clone, Copy)]
struct Pending {
    /// What the reach depends on, in words.
    on: &'static str,
    /// The words for the project it does not reach ("it is not one").
    outside: &'static str,
}

impl Pending {
    /// Whether the law's reach turns on an open fact: the project is a land development
    /// activity on the facts or undetermined (`lda`), and exempt, not exempt or
    /// undetermined (`exempt`).
    fn of(lda: Option<bool>, exempt: Option<bool>) -> Option<Pending> {
        match (lda, exempt) {
            (Some(false), _) | (Some(true), Some(_)) => None,
            (None, _) => Some(Pending {
                on: "whether the project is a land development activity, which turns on the larger common plan (see its open facts)",
                outside: "it is not one",
            }),
            (Some(true), None) => Some(Pending {
                on: "the exemption, which turns on the law's unconfirmed effective date (AMB-14)",
                outside: "it is exempt",
            }),
        }
    }

    /// A requirement found applying (or indicated, or one the Town may require) depends
    /// on the reach; one that does not apply either way stays so.
    fn requirement(self, r: &mut Finding<Requirement>) {
        use RequirementStatus as S;
        if matches!(
            r.result.status,
            S::Applies | S::Indicated | S::MayBeRequired
        ) {
            let was = r.result.status.words();
            r.result.status = S::Depends;
            r.because(format!(
                "depends on {}: {was} if the law reaches the project, does not apply if {}",
                self.on, self.outside
            ));
        }
    }

    /// A Condition met is met only where the law reaches the project: undetermined while
    /// the reach is; one not met stays so.
    fn condition(self, f: &mut Finding<Option<bool>>) {
        if f.result == Some(true) {
            f.result = None;
            f.because(format!(
                "undetermined: met if the law reaches the project, which depends on {}; not met if {}",
                self.on, self.outside
            ));
        }
    }
}

/// While whether the law reaches the project turns on an open fact (whether it is a land
/// development activity, or whether an exemption holds), nothing the law asks of a project
/// it reaches is certain: see [`Pending`].
fn pending_reach(d: &mut Determination) {
    let Some(p) = Pending::of(d.land_development_activity.result, d.exempt.result) else {
        return;
    };
    for r in Arc::make_mut(&mut d.requirements) {
        p.requirement(r);
    }
    if let Some(c) = &mut d.conditions {
        for f in [
            &mut c.condition_one,
            &mut c.condition_two,
            &mut c.condition_three,
        ] {
            p.condition(f);
        }
    }
}

/// Condition One alone (Carmel § 156-81C(1)) — whether the project discharges a pollutant
/// of concern to a 303(d)-listed water or lies in a TMDL watershed — with its citations and
/// evidence, for screening every parcel of a town without building whole determinations.
/// `None` where the jurisdiction has no Conditions.
pub fn condition_one(
    profile: &Profile,
    facts: &ProjectFacts,
    water: &WaterEvidence,
) -> Option<Finding<Option<bool>>> {
    ConditionOneScreen::new(profile, facts).map(|s| s.finding(water))
}

/// Condition One for one project tried on many places: whether Article X reaches the
/// project at all (a land development activity, not exempt) depends only on its facts, so
/// it is decided once here and each place costs only its water evidence.
pub struct ConditionOneScreen<'a> {
    profile: &'a Profile,
    facts: &'a ProjectFacts,
    sqft: f64,
    outside: Option<String>,
    pending: Option<Pending>,
    /// Condition One's citations and readings, built once for every place.
    skeleton: Finding<Option<bool>>,
}

impl<'a> ConditionOneScreen<'a> {
    /// The screen for a project of `facts`; `None` where the jurisdiction has no Conditions.
    pub fn new(profile: &'a Profile, facts: &'a ProjectFacts) -> Option<Self> {
        if profile.family.land_development != LandDevelopmentFamily::NyConditions {
            return None;
        }
        let sqft = square_feet(facts.disturbed);
        let none = WaterEvidence::default();
        let mut cx = Ctx {
            profile,
            facts,
            water: &none,
            sqft,
            open_facts: Vec::new(),
        };
        let (outside, lda, exempt) = conditions::outside(&mut cx);
        let skeleton = conditions::condition_one_skeleton(&cx);
        Some(Self {
            profile,
            facts,
            sqft,
            outside,
            pending: Pending::of(lda, exempt),
            skeleton,
        })
    }

    /// Condition One with its citations and evidence, at a place with this water evidence.
    pub fn finding(&self, water: &WaterEvidence) -> Finding<Option<bool>> {
        let (mut f, _) = self.decide(water);
        if let Some(p) = self.pending {
            p.condition(&mut f);
        }
        f
    }

    /// Condition One on the evidence alone, before an open reach of the law makes a "met"
    /// undetermined (what follows from it turns on this), with the facts it left open.
    fn decide(&self, water: &WaterEvidence) -> (Finding<Option<bool>>, Vec<String>) {
        let mut cx = Ctx {
            profile: self.profile,
            facts: self.facts,
            water,
            sqft: self.sqft,
            open_facts: Vec::new(),
        };
        let f =
            conditions::condition_one_from(&mut cx, self.outside.as_deref(), self.skeleton.clone());
        (f, cx.open_facts)
    }
}

/// The whole determination for one project tried on many places, each with its own water
/// evidence: equal to [`determine`] at each. Where the law has Conditions, only Condition
/// One reads the water evidence, and what follows from it turns only on its result, so
/// everything else is decided once, for each of its three results; elsewhere each place is
/// decided whole.
pub struct Determiner<'a> {
    profile: &'a Profile,
    facts: &'a ProjectFacts,
    conditions: Option<(ConditionOneScreen<'a>, conditions::Plan)>,
}

impl<'a> Determiner<'a> {
    /// The determiner of a project of `facts` under `profile`'s law.
    pub fn new(profile: &'a Profile, facts: &'a ProjectFacts) -> Self {
        let conditions = ConditionOneScreen::new(profile, facts).map(|screen| {
            let none = WaterEvidence::default();
            let mut cx = Ctx {
                profile,
                facts,
                water: &none,
                sqft: screen.sqft,
                open_facts: Vec::new(),
            };
            let mut plan = conditions::Plan::new(&mut cx, screen.outside.as_deref());
            if let Some(p) = screen.pending {
                plan.each_condition_and_requirement(|f| p.condition(f), |r| p.requirement(r));
            }
            (screen, plan)
        });
        Determiner {
            profile,
            facts,
            conditions,
        }
    }

    /// The determination at a place with this water evidence.
    pub fn determine(&self, water: &WaterEvidence) -> Determination {
        let Some((screen, plan)) = &self.conditions else {
            return determine(self.profile, self.facts, water);
        };
        let (mut one, open) = screen.decide(water);
        let result = one.result;
        if let Some(p) = screen.pending {
            p.condition(&mut one);
        }
        plan.determination(self.profile, result, one, open)
    }
}

#[cfg(test)]
mod tests;
