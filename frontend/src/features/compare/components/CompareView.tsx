// The body of every comparison page (live, saved, public): result table, validity, top movers, host
// telemetry, syscalls, network queues, what changed, decisions and notes. Members get the write
// controls (notes, decisions); the public view gets none.
import { lazy, Suspense, startTransition, useEffect, useMemo, useState } from "react";
import { SkeletonBlock } from "@/components/Skeleton";
import { countOf } from "@/lib/format";
import { useSlots } from "@/lib/slots";
import type { CompareReply, CompareSource } from "../api";
import { type CompareViewState, defaultOverlays, type OverlayChoice, type SectionId } from "../view-state";
import { ChangesSection, type KnobPick } from "./Changes";
import { DecisionDialog, DecisionsSection } from "./Decisions";
import { MoversSection } from "./Movers";
import { NotesList, NotesSection } from "./Notes";
import { ResultTable } from "./ResultTable";
import { Section } from "./Section";
import { SetupNoiseSection } from "./SetupNoise";
import { SyscallsSection } from "./Syscalls";
import { ValiditySummary } from "./ValiditySummary";
import "../compare.css";

// Host telemetry draws charts: their code (recharts) loads beside the table, not before it.
const TelemetrySection = lazy(() => import("./Telemetry").then((m) => ({ default: m.TelemetrySection })));
const SteadyStateTable = lazy(() => import("./Telemetry").then((m) => ({ default: m.SteadyStateTable })));

export type Evidence = { shortId: string } | { save: () => Promise<string> };

interface Props {
  reply: CompareReply;
  source: CompareSource;
  view: Pick<CompareViewState, "overlays" | "hidden">;
  onView: (change: Partial<CompareViewState>) => void;
  /** Charts a public link may draw (null: any the comparison has). */
  allowedOverlays?: OverlayChoice[] | null;
  onBaseline?: (name: string) => void;
  /** Members only: where notes and decisions go. */
  member?: { slug: string; evidence: Evidence };
}

/** The charts on screen: the URL's (or saved) choice, else the defaults the comparison has. */
export function effectiveOverlays(
  reply: CompareReply,
  view: Pick<CompareViewState, "overlays">,
  allowed: OverlayChoice[] | null = null,
): OverlayChoice[] {
  if (view.overlays) return view.overlays;
  const defaults = defaultOverlays(reply.overlay_metrics);
  if (!allowed) return defaults;
  const shared = defaults.filter((d) => allowed.some((a) => a.role === d.role && a.metric === d.metric));
  return shared.length ? shared : allowed;
}

export function CompareView({
  reply,
  source,
  view,
  onView,
  allowedOverlays = null,
  onBaseline,
  member,
}: Props) {
  const overlays = useMemo(
    () => effectiveOverlays(reply, view, allowedOverlays),
    [reply, view, allowedOverlays],
  );
  const [decision, setDecision] = useState<{ experiment?: string; knob?: KnobPick } | null>(null);
  const hidden = (id: SectionId) => view.hidden.includes(id);
  const toggle = (id: SectionId) =>
    onView({ hidden: hidden(id) ? view.hidden.filter((h) => h !== id) : [...view.hidden, id] });
  const common = { hidden: false, onToggle: toggle };
  const sig = reply.top_movers.filter((m) => m.significant).length;
  const { CompareFindings } = useSlots();
  // The verdicts are what a reader came for: the table paints first, the sections below render in a
  // transition (in slices, so the page answers clicks while they do).
  const [rest, setRest] = useState(false);
  useEffect(() => startTransition(() => setRest(true)), []);

  return (
    <>
      <ValiditySummary reply={reply} />
      <ResultTable reply={reply} onBaseline={onBaseline} />
      <SetupNoiseSection noise={reply.noise} />
      {/* The results table is what a reader came for: it comes first, the findings follow it. */}
      {CompareFindings ? (
        <CompareFindings
          findings={reply.findings ?? []}
          baseline={reply.baseline}
          onDecide={
            member
              ? (p) =>
                  setDecision({
                    experiment: p.experiment,
                    knob: { ...p, baseline: reply.baseline },
                  })
              : undefined
          }
        />
      ) : null}
      {rest ? (
        <>
          <Section
            id="movers"
            title="Top movers"
            hint={`${countOf(reply.top_movers.length, "change")}, ${sig} significant`}
            {...common}
            hidden={hidden("movers")}
          >
            <MoversSection reply={reply} />
          </Section>

          <Section
            id="telemetry"
            title="Host telemetry"
            hint="aligned to run start, shared cursor; notes with a time range drawn as bands"
            {...common}
            hidden={hidden("telemetry")}
          >
            <Suspense fallback={<SkeletonBlock lines={6} />}>
              <TelemetrySection
                reply={reply}
                source={source}
                overlays={overlays}
                allowed={allowedOverlays}
                onOverlays={(next) => onView({ overlays: next })}
              />
            </Suspense>
          </Section>

          <Section id="syscalls" title="Syscalls" hint="strace -c" {...common} hidden={hidden("syscalls")}>
            <SyscallsSection reply={reply} />
          </Section>

          {reply.netqtop.length ? (
            <Section
              id="netqtop"
              title="Network queues"
              hint="netqtop, per queue and direction"
              {...common}
              hidden={hidden("netqtop")}
            >
              <Suspense fallback={<SkeletonBlock lines={3} />}>
                <SteadyStateTable reply={reply} rows={reply.netqtop} label="Network queues" />
              </Suspense>
            </Section>
          ) : null}

          <Section
            id="changes"
            title="What changed"
            hint={`config snapshots, sysctls and host facts against ${reply.baseline}`}
            {...common}
            hidden={hidden("changes")}
          >
            <ChangesSection reply={reply} onDecide={member ? (k) => setDecision({ knob: k }) : undefined} />
          </Section>

          {member ? (
            <Section
              id="decisions"
              title="Decisions"
              {...common}
              hidden={hidden("decisions")}
              actions={
                <button type="button" className="btn btn-sm" onClick={() => setDecision({})}>
                  Record decision
                </button>
              }
            >
              <DecisionsSection reply={reply} slug={member.slug} />
            </Section>
          ) : null}

          <Section id="notes" title="Notes" hint="Markdown" {...common} hidden={hidden("notes")}>
            {member ? (
              <NotesSection reply={reply} slug={member.slug} />
            ) : (
              <NotesList reply={reply} notes={reply.notes} />
            )}
          </Section>

          {member ? (
            <DecisionDialog
              reply={reply}
              slug={member.slug}
              open={decision !== null}
              initial={decision}
              evidence={member.evidence}
              onClose={() => setDecision(null)}
            />
          ) : null}
        </>
      ) : null}
    </>
  );
}
