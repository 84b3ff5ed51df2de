// The first thing a new user does: log in, create a project, create an agent token (shown once, copied),
// and find empty states that say how to start an agent. Runs against a real server and database.
import { expect, type Page, test } from "@playwright/test";

const email = () => process.env.PERFLAB_E2E_ADMIN_EMAIL ?? "";
const password = () => process.env.PERFLAB_E2E_ADMIN_PASSWORD ?? "";

async function logIn(page: Page, pw = password()) {
  await page.getByLabel("Email").fill(email());
  await page.getByLabel("Password").fill(pw);
  await page.getByRole("button", { name: "Log in" }).click();
}

test("log in, create a project and a token, see the empty states", async ({ page, context, baseURL }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const unique = Date.now().toString(36);
  const projectName = `nginx proxy throughput ${unique}`;
  const slug = `nginx-proxy-throughput-${unique}`;

  // Anonymous visitors land on the login page.
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);

  // A wrong password is refused with the server's message, on the form.
  await logIn(page, "not-the-password");
  await expect(page.getByRole("alert")).toContainText(/wrong email or password/i);
  await expect(page).toHaveURL(/\/login$/);

  await logIn(page);
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("button", { name: "Log out" })).toBeVisible();

  // Projects: empty state (on a fresh database) or the list; then create one with a derived slug.
  const emptyProjects = page.getByText("No projects yet — create one to start recording experiments");
  if (!(await emptyProjects.isVisible())) {
    await page.getByRole("button", { name: "New project" }).click();
  }
  await page.getByLabel("Name").fill(projectName);
  await expect(page.getByLabel("Slug")).toHaveValue(slug);
  await page.getByRole("button", { name: "Create project" }).click();

  // The new project's page explains how to get the first run in.
  await expect(page).toHaveURL(new RegExp(`/p/${slug}$`));
  const quickstart = page.getByTestId("agent-quickstart");
  await expect(quickstart).toContainText("No experiments yet");
  await expect(quickstart).toContainText(`curl -fsSLo perflab-agent.pyz ${baseURL}/agent/perflab-agent.pyz`);
  await expect(quickstart).toContainText(`python3 perflab-agent.pyz daemon --server ${baseURL}`);
  await expect(quickstart).toContainText("--role proxy");
  await expect(quickstart).toContainText(`--project ${slug}`);
  await expect(quickstart.getByRole("link", { name: "Import results" })).toHaveAttribute(
    "href",
    `/p/${slug}/import`,
  );

  // The agent download the commands point at exists.
  const agent = await page.request.get("/agent/perflab-agent.pyz");
  expect(agent.status()).toBe(200);

  // Hosts: nothing yet, and the page says what to run.
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Hosts" }).click();
  await expect(
    page.getByText("No hosts yet — start an agent daemon on each machine to observe"),
  ).toBeVisible();

  // Tokens: empty, then create one. Its secret is shown once, with a warning and a copy button.
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Tokens" }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/tokens$`));
  await expect(page.getByText("No tokens yet — create one above to connect an agent")).toBeVisible();
  await page.getByLabel("Name").fill("lab agents");
  await page.getByRole("button", { name: "Create token" }).click();

  const dialog = page.getByRole("dialog", { name: 'Token "lab agents" created' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("it will not be shown again");
  const token = (await dialog.getByTestId("new-token").textContent())?.trim() ?? "";
  expect(token).toMatch(/^plb_\S{20,}$/);
  await expect(dialog).toContainText(`--token ${token}`);
  await dialog.getByRole("button", { name: "Copy token" }).click();
  await expect(dialog.getByRole("button", { name: "Copied", exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  await dialog.getByRole("button", { name: "I have copied it" }).click();
  await expect(dialog).toBeHidden();
  // Gone for good: the list shows only a hint.
  await expect(page.getByText(token)).toHaveCount(0);
  const row = page.getByRole("row", { name: /lab agents/ });
  await expect(row).toContainText("ingest");
  await expect(row).toContainText("read");
  await expect(row).toContainText("never");
  const hintCell = (await row.getByRole("cell").nth(1).textContent()) ?? "";
  expect(token.startsWith(hintCell.replace("…", ""))).toBe(true);

  // The token works for an agent (bearer auth on the project's read API)...
  const asAgent = await page.request.get(`/api/projects/${slug}/hosts`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(asAgent.status()).toBe(200);

  // ...until it is revoked.
  await row.getByRole("button", { name: "Revoke token lab agents" }).click();
  await page
    .getByRole("dialog", { name: 'Revoke "lab agents"?' })
    .getByRole("button", { name: "Revoke token" })
    .click();
  await expect(row).toContainText("revoked");
  const afterRevoke = await page.request.get(`/api/projects/${slug}/hosts`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(afterRevoke.status()).toBe(401);

  // Log out; a deep link then goes through login and comes back to where it pointed.
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto(`/p/${slug}/tokens`);
  await expect(page).toHaveURL(new RegExp(`/login\\?next=${encodeURIComponent(`/p/${slug}/tokens`)}$`));
  await logIn(page);
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/tokens$`));
});

test("server errors are shown with their detail, and view state lives in the URL", async ({ page }) => {
  await page.goto("/login");
  await logIn(page);
  await expect(page).toHaveURL(/\/projects$/);

  // A duplicate slug is refused by the server (409); its detail is shown to the user.
  const slug = `dup-${Date.now().toString(36)}`;
  const create = async () => {
    await page.goto("/projects");
    // Wait for the page itself: isVisible() below does not wait.
    await expect(page.getByRole("heading", { name: "Projects", level: 1 })).toBeVisible();
    const newButton = page.getByRole("button", { name: "New project" });
    if (await newButton.isVisible()) await newButton.click();
    await page.getByLabel("Name").fill(slug);
    await page.getByRole("button", { name: "Create project" }).click();
  };
  await create();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}$`));
  await create();
  await expect(page.getByRole("alert")).toContainText(`'${slug}' already exists`);

  // A planned experiment appears in the history; sorting, filters and selection go into the URL.
  await page.goto(`/p/${slug}`);
  await page.getByRole("button", { name: "New experiment" }).click();
  const dialog = page.getByRole("dialog", { name: "New experiment" });
  await dialog.getByLabel("Name").fill("proxy_buffers 4 128k");
  await dialog.getByLabel("Tags").fill("nginx, buffers");
  await dialog.getByRole("button", { name: "Create experiment" }).click();
  await expect(page.getByRole("heading", { name: "proxy_buffers 4 128k" })).toBeVisible();
  await expect(page.getByText("No runs yet")).toBeVisible();

  await page.getByRole("link", { name: "Experiments" }).first().click();
  await expect(page.getByRole("row", { name: /proxy_buffers 4 128k/ })).toBeVisible();
  await page.getByRole("button", { name: /^RPS/ }).click();
  await expect(page).toHaveURL(/sort=rps/);
  await page
    .getByRole("row", { name: /proxy_buffers 4 128k/ })
    .getByRole("button", { name: "buffers" })
    .click();
  await expect(page).toHaveURL(/tag=buffers/);
  // click, not check(): the box follows the URL, so it turns checked once the navigation has
  // re-rendered the row, which on a loaded machine is after check() looks (it then throws).
  const select = page.getByRole("checkbox", { name: "Select proxy_buffers 4 128k" });
  await select.click();
  await expect(page).toHaveURL(/sel=\d+/);
  await expect(select).toBeChecked();

  // Reloading keeps the whole view.
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "Select proxy_buffers 4 128k" })).toBeChecked();
  await expect(page.getByRole("button", { name: "Remove tag filter buffers" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /RPS/ })).toHaveAttribute("aria-sort", "descending");

  // A filter that matches nothing says so and offers the way out.
  await page.getByLabel("Status").selectOption("archived");
  await expect(page.getByText("No experiments match these filters")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(page.getByRole("row", { name: /proxy_buffers 4 128k/ })).toBeVisible();
});
