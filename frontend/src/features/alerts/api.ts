// Webhooks of a project (regression alerts): listed with their last delivery, created (the signing
// secret is returned once), deleted. Owners only; the server refuses everyone else.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type Webhook = Schemas["WebhookRead"];
export type WebhookCreated = Schemas["WebhookCreated"];
export type WebhookEvent = Schemas["WebhookCreate"]["events"][number];

export const EVENTS: readonly { event: WebhookEvent; label: string }[] = [
  { event: "change_point", label: "a new change point (requests/sec, p99)" },
  { event: "gate_failed", label: "a CI gate failed a build" },
  { event: "finding", label: "a finding appeared in an experiment" },
];

export const SENSITIVITIES: readonly { value: number; label: string }[] = [
  { value: 0.01, label: "1 false alarm in 100 flat histories" },
  { value: 0.05, label: "1 in 20 (default)" },
  { value: 0.1, label: "1 in 10" },
  { value: 0.2, label: "1 in 5" },
];

const keys = { list: (slug: string) => ["webhooks", slug] as const };

export function webhooksQueryOptions(slug: string, enabled: boolean) {
  return queryOptions({
    queryKey: keys.list(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/webhooks", { params: { path: { slug } }, signal })),
    enabled,
    // Deliveries happen in the background: keep the last status fresh while the page is open.
    refetchInterval: 5_000,
  });
}

export function useCreateWebhook(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["WebhookCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/webhooks", { params: { path: { slug } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.list(slug) }),
  });
}

export function useDeleteWebhook(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE("/api/webhooks/{webhook_id}", { params: { path: { webhook_id: id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.list(slug) }),
  });
}
