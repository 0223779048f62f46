#include "decisions.h"

namespace tessera {

const char *to_string(ProgramChoice choice) {
    switch (choice) {
    case ProgramChoice::BestPredicted: return "chosen";
    case ProgramChoice::CandidateOption: return "chosen (the candidate option)";
    case ProgramChoice::BandsOfWholeRows: return "chosen (bands of whole rows)";
    }
    return "?";
}

const char *to_string(ChainOutcome outcome) {
    switch (outcome) {
    case ChainOutcome::Fused: return "fused";
    case ChainOutcome::FusedByBands: return "fused by bands";
    case ChainOutcome::NotFused: return "not fused";
    case ChainOutcome::FusionOff: return "not fused (fuse_chains is off)";
    case ChainOutcome::NoGainPredicted: return "no gain predicted";
    case ChainOutcome::PartOfFusedChain: return "scheduled with the fused chain above";
    }
    return "?";
}

const StageDecision *ScheduleDecisions::stage(const std::string &func) const {
    for (const StageDecision &d : stages) {
        if (d.func == func) return &d;
    }
    return nullptr;
}

std::vector<hal::ModelTerms> ScheduleDecisions::chosen_terms() const {
    std::vector<hal::ModelTerms> out;
    for (const StageDecision &d : stages) {
        const rtile::RProgram *p = d.chosen_program();
        if (!p) continue;
        out.push_back(p->terms);
        out.back().weight = d.prediction_weight;
    }
    return out;
}

}  // namespace tessera
