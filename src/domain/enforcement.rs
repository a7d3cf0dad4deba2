//! The words of an illicit discharge case: how it was opened, its status, the kinds of
//! action its log records, how a notice was served and how it closed.

use super::words::words;

words! {
    /// How a case came to be opened.
    pub enum Origin ("an origin") {
        /// A complaint from the public.
        Complaint = "complaint",
        /// A call to the hotline.
        Hotline = "hotline",
        /// A dry-weather screening that found a suspect or obvious discharge.
        Screening = "screening",
        /// A connection judged illicit or needing review.
        Connection = "connection",
        /// Staff who saw it.
        Staff = "staff",
    }
}

words! {
    /// Whether a case still takes actions.
    pub enum CaseStatus ("a case status") {
        /// Open: it takes actions.
        Open = "open",
        /// Closed: it takes none.
        Closed = "closed",
    }
}

words! {
    /// How a case closed.
    pub enum Closure ("a closure") {
        /// The discharge was eliminated.
        Eliminated = "eliminated",
        /// The report was unfounded.
        Unfounded = "unfounded",
        /// Referred to another agency.
        Referred = "referred",
    }
}

words! {
    /// Every kind of action a case's log records.
    pub enum ActionKind ("an action") {
        /// A visit to the site.
        SiteVisit = "site_visit",
        /// A dye test.
        DyeTest = "dye_test",
        /// A smoke test.
        SmokeTest = "smoke_test",
        /// A CCTV inspection of the pipe.
        Cctv = "cctv",
        /// A sample taken.
        Sampling = "sampling",
        /// The notice of violation served.
        NoticeOfViolation = "notice_of_violation",
        /// Windsor's Town Manager's written notice.
        WrittenNotice = "written_notice",
        /// A written plan for correction received.
        CorrectionPlan = "correction_plan",
        /// A re-inspection.
        Reinspection = "reinspection",
        /// A citation and fine issued.
        CitationIssued = "citation_issued",
        /// The violator's written compliance report received.
        ComplianceReport = "compliance_report",
        /// A fine received.
        FinePaid = "fine_paid",
        /// An appeal filed.
        AppealFiled = "appeal_filed",
        /// The appeal heard.
        AppealHeard = "appeal_heard",
        /// The appeal decided.
        AppealDecided = "appeal_decided",
        /// A fine contested: the respondent asks for a hearing (Windsor (d)(1) covers
        /// "uncontested" fines only).
        HearingRequested = "hearing_requested",
        /// The hearing on a contested citation decided.
        HearingDecided = "hearing_decided",
        /// The decision filed with the clerk and mailed.
        DecisionFiled = "decision_filed",
        /// The work done by the Town at the violator's cost.
        AbatementByTown = "abatement_by_town",
        /// Referred to another agency.
        Referral = "referral",
        /// The discharge eliminated (logged when the case closes so).
        Eliminated = "eliminated",
    }
}

impl ActionKind {
    /// What it is, with the fields it needs.
    pub const fn describe(self) -> &'static str {
        match self {
            ActionKind::SiteVisit => "a visit to the site",
            ActionKind::DyeTest => "a dye test (results: where the dye appeared)",
            ActionKind::SmokeTest => "a smoke test",
            ActionKind::Cctv => "a CCTV inspection of the pipe",
            ActionKind::Sampling => "a sample taken (results: the readings)",
            ActionKind::NoticeOfViolation => {
                "the notice of violation served (method: hand or mail)"
            }
            ActionKind::WrittenNotice => {
                "Windsor's Town Manager's written notice (method: hand or mail)"
            }
            ActionKind::CorrectionPlan => "a written plan for correction received",
            ActionKind::Reinspection => "a re-inspection (outcome: corrected or not_corrected)",
            ActionKind::CitationIssued => "a citation and fine issued (violations: how many)",
            ActionKind::ComplianceReport => "the violator's written compliance report received",
            ActionKind::FinePaid => "a fine received",
            ActionKind::AppealFiled => "an appeal filed",
            ActionKind::AppealHeard => "the appeal heard",
            ActionKind::AppealDecided => "the appeal decided (outcome: upheld or reversed)",
            ActionKind::HearingRequested => {
                "the fine contested: a hearing requested by the respondent"
            }
            ActionKind::HearingDecided => {
                "the hearing on a contested citation decided (outcome: upheld or reversed)"
            }
            ActionKind::DecisionFiled => "the decision filed with the clerk and mailed",
            ActionKind::AbatementByTown => "the work done by the Town at the violator's cost",
            ActionKind::Referral => "referred to another agency",
            ActionKind::Eliminated => "the discharge eliminated (logged when the case closes so)",
        }
    }

    /// The person answering the case takes it (a plan, a report, a payment, an appeal),
    /// not an office of the Town.
    pub const fn is_respondents(self) -> bool {
        matches!(
            self,
            ActionKind::CorrectionPlan
                | ActionKind::ComplianceReport
                | ActionKind::FinePaid
                | ActionKind::AppealFiled
                | ActionKind::HearingRequested
        )
    }

    /// A notice or citation, served by hand or by mail.
    pub const fn is_served(self) -> bool {
        matches!(
            self,
            ActionKind::NoticeOfViolation | ActionKind::WrittenNotice | ActionKind::CitationIssued
        )
    }
}

words! {
    /// How a notice or citation was served.
    pub enum ServiceMethod ("a way of service") {
        /// By hand.
        Hand = "hand",
        /// By mail (certified and first-class).
        Mail = "mail",
    }
}

words! {
    /// What kind of person a case's respondent is: a law may bar an action against one
    /// kind (Windsor: "No written notice may be issued against the state ...").
    pub enum RespondentKind ("a kind of respondent") {
        /// A natural person.
        Individual = "individual",
        /// A business: a company, a corporation, a partnership.
        Business = "business",
        /// A public body other than the State: a town, a county, a district, the United
        /// States.
        PublicBody = "public_body",
        /// The State, or one of its departments or agencies.
        State = "state",
        /// Not known: an action a law bars against some kind is allowed but flagged until
        /// the respondent is confirmed.
        Unknown = "unknown",
    }
}

words! {
    /// Whether a respondent who is a person is a State official or employee acting within
    /// the scope of employment (Windsor (b)(1), (b)(3)).
    pub enum StateCapacity ("an answer to acting for the State") {
        /// A State official or employee acting within the scope of employment.
        Yes = "yes",
        /// Not acting for the State.
        No = "no",
        /// Not known: an action a law bars against one is flagged until it is known.
        Unknown = "unknown",
    }
}

words! {
    /// Where a case's record of its respondent came from.
    pub enum RespondentSource ("a source of a respondent") {
        /// Given in a request (opening the case, or setting its respondent).
        Given = "given",
        /// The owner of the case's parcel, as the parcels layer records it.
        ParcelOwner = "parcel_owner",
        /// Nothing: no respondent was given and no parcel owner is on record.
        NotRecorded = "not_recorded",
    }
}
