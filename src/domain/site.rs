//! The words of a construction site's record: its status, the kinds of its log's
//! actions, who made an inspection, and the milestones the towns' laws name.

use super::words::words;

words! {
    /// Where a site is in its life, in order: each moves only to the next (a site is
    /// closed only once stabilized).
    pub enum SiteStatus ("a site status") {
        /// Applied for, not yet approved.
        Proposed = "proposed",
        /// Approved (the SWPPP accepted), not yet started.
        Approved = "approved",
        /// Construction under way.
        Active = "active",
        /// Final stabilization reached; the hand-over not yet done.
        Stabilized = "stabilized",
        /// Closed out.
        Closed = "closed",
    }
}

impl SiteStatus {
    /// The status an action of `kind` moves a site to, if it moves it.
    pub fn after(self, kind: SiteActionKind) -> Option<SiteStatus> {
        match kind {
            SiteActionKind::Approved => Some(SiteStatus::Approved),
            SiteActionKind::Started => Some(SiteStatus::Active),
            SiteActionKind::Stabilized => Some(SiteStatus::Stabilized),
            SiteActionKind::Close => Some(SiteStatus::Closed),
            _ => None,
        }
    }

    /// The status a site must have for an action that moves it to `to`.
    pub fn before(to: SiteStatus) -> Option<SiteStatus> {
        match to {
            SiteStatus::Proposed => None,
            SiteStatus::Approved => Some(SiteStatus::Proposed),
            SiteStatus::Active => Some(SiteStatus::Approved),
            SiteStatus::Stabilized => Some(SiteStatus::Active),
            SiteStatus::Closed => Some(SiteStatus::Stabilized),
        }
    }
}

words! {
    /// What an entry of a site's log records.
    pub enum SiteActionKind ("a site action") {
        /// The site plan and SWPPP approved: proposed to approved.
        Approved = "approved",
        /// Construction started: approved to active.
        Started = "started",
        /// An inspection (a trained contractor's, a qualified inspector's or the Town's).
        Inspection = "inspection",
        /// A notice of violation (the land development notice; `case_id` links it).
        Notice = "notice",
        /// A stop-work order issued.
        StopWork = "stop_work",
        /// A stop-work order lifted: the Town confirms compliance.
        StopWorkLifted = "stop_work_lifted",
        /// The 48-hour notice of a milestone.
        MilestoneNotice = "milestone_notice",
        /// A performance or maintenance guarantee posted.
        Guarantee = "guarantee",
        /// A guarantee released.
        GuaranteeReleased = "guarantee_released",
        /// Final stabilization reached: active to stabilized.
        Stabilized = "stabilized",
        /// As-built plans certified by a professional engineer received.
        AsBuilt = "as_built",
        /// The maintenance agreement recorded.
        AgreementRecorded = "agreement_recorded",
        /// The maintenance easement recorded.
        EasementRecorded = "easement_recorded",
        /// Closed out: stabilized to closed.
        Close = "close",
    }
}

words! {
    /// Who made an inspection of a site.
    pub enum InspectorRole ("an inspector role") {
        /// The trained contractor (North Castle § 267-7A(4)).
        TrainedContractor = "trained_contractor",
        /// The applicant's qualified inspector or qualified professional (North Castle
        /// § 267-7A(5), Carmel § 156-83B).
        QualifiedInspector = "qualified_inspector",
        /// The Town's own oversight inspection.
        Town = "town",
    }
}

words! {
    /// The milestones before which the applicant notifies the Town 48 hours ahead
    /// (Carmel § 156-83D(1)-(7); North Castle's inspection section A(1)(a)[1]-[8]).
    pub enum Milestone ("a milestone") {
        /// Start of construction.
        StartOfConstruction = "start_of_construction",
        /// Installation of sediment and erosion control measures.
        ErosionControls = "erosion_controls",
        /// Completion of site clearing.
        SiteClearing = "site_clearing",
        /// Completion of rough grading.
        RoughGrading = "rough_grading",
        /// Completion of final grading.
        FinalGrading = "final_grading",
        /// Close of the construction season.
        SeasonClose = "season_close",
        /// Completion of final landscaping.
        FinalLandscaping = "final_landscaping",
        /// Successful establishment of landscaping in public areas (both laws list it: North
        /// Castle's construction inspections A(1)(a)[8], Carmel § 156-83D(8)).
        PublicLandscaping = "public_landscaping",
    }
}
