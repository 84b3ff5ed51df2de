// Places where one feature shows another's panel without importing it (features never import each other):
// the app layer provides the components, the hosting feature renders whatever it was given.
import { type ComponentType, createContext, useContext } from "react";
import type { Schemas } from "@/api/client";

/** A knob to pre-fill the decision form with, from a finding's suggestion. */
export interface DecisionPick {
  experiment: string;
  component: string;
  knob: string;
  before: string;
  after: string;
  rationale: string;
}

export interface Slots {
  /** Top of the run page. */
  RunFindings?: ComponentType<{
    runId: string;
    slug: string;
    experimentId: number;
    experimentName: string;
    live?: boolean;
  }>;
  /** Top of a comparison (live, saved, shared); onDecide is absent where the viewer cannot write. */
  CompareFindings?: ComponentType<{
    findings: Schemas["ExperimentFindings"][];
    baseline: string;
    onDecide?: (pick: DecisionPick) => void;
  }>;
}

const SlotsContext = createContext<Slots>({});

export const SlotsProvider = SlotsContext.Provider;

export function useSlots(): Slots {
  return useContext(SlotsContext);
}
