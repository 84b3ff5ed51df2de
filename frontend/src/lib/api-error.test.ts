import { describe, expect, it } from "vitest";
import { ApiError, describeDetail, fieldErrors } from "./api-error";

function response(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers });
}

describe("ApiError", () => {
  it("uses the server's detail sentence", () => {
    const err = ApiError.fromResponse(response(409), {
      error: "conflict",
      detail: "a project with slug 'x' already exists",
    });
    expect(err.status).toBe(409);
    expect(err.code).toBe("conflict");
    expect(err.message).toBe("a project with slug 'x' already exists");
  });

  it("names the field of a 422", () => {
    const detail = [
      { loc: ["body", "name"], msg: "String should have at least 1 character", type: "string_too_short" },
      { loc: ["body", "scopes", 0], msg: "Input should be 'ingest' or 'read'", type: "literal_error" },
    ];
    const err = ApiError.fromResponse(response(422), { error: "validation_error", detail });
    expect(err.fields).toEqual([
      { field: "name", message: "String should have at least 1 character" },
      { field: "scopes.0", message: "Input should be 'ingest' or 'read'" },
    ]);
    expect(err.message).toBe(
      "name: String should have at least 1 character; scopes.0: Input should be 'ingest' or 'read'",
    );
    expect(err.fieldMessage("name")).toBe("String should have at least 1 character");
  });

  it("accepts FastAPI's plain 422 body too", () => {
    const err = ApiError.fromResponse(response(422), {
      detail: [{ loc: ["query", "page"], msg: "Input should be a valid integer", type: "int_parsing" }],
    });
    expect(err.code).toBe("validation_error");
    expect(err.message).toBe("page: Input should be a valid integer");
  });

  it("keeps Retry-After for 503", () => {
    const err = ApiError.fromResponse(response(503, { "Retry-After": "5" }), {
      error: "database_unavailable",
      detail: "the database is unreachable; retry shortly",
    });
    expect(err.retryAfter).toBe(5);
  });

  it("falls back to a sentence when the body is empty or HTML", () => {
    expect(ApiError.fromResponse(response(502), "<html>Bad gateway</html>").message).toBe(
      "The server failed (HTTP 502).",
    );
    expect(ApiError.fromResponse(response(401), undefined).message).toBe(
      "Your session has ended. Log in again.",
    );
  });

  it("shows a refusal that names its field in plain words as it is, without a dotted path", () => {
    const err = ApiError.fromResponse(response(422), {
      error: "validation_error",
      detail: [
        {
          loc: ["body", "files"],
          msg: "file 1 (capture.pcap) contains a NUL byte (\\0) at line 3; perflab stores text — is this a binary file?",
          type: "unstorable_value",
        },
      ],
    });
    expect(err.message).toBe(
      "file 1 (capture.pcap) contains a NUL byte (\\0) at line 3; perflab stores text — is this a binary file?",
    );
    expect(err.fieldMessage("files")).toContain("NUL byte");
  });

  it("describes odd details without crashing", () => {
    expect(describeDetail({ missing: ["proxy"] })).toBe('{"missing":["proxy"]}');
    expect(fieldErrors("nope")).toEqual([]);
    expect(describeDetail([{ loc: ["body"], msg: "Value error, bad input" }])).toBe("body: bad input");
  });
});
