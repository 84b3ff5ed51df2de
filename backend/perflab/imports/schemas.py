from __future__ import annotations

import uuid
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, field_validator
from pydantic_core import PydanticCustomError

from perflab.schemas_base import NUL, UNSTORABLE, RequestModel


class ImportFile(RequestModel):
    # The content's NUL check is the request's (`ImportPreviewRequest`), which can say which file and line.
    typed_fields: ClassVar[frozenset[str]] = frozenset({"content"})

    name: str = Field(min_length=1, max_length=255)
    content: str = Field(max_length=200_000_000)
    # base64 for binary uploads (gzip); text otherwise.
    encoding: Literal["text", "base64"] = "text"
    # The parser kind, or "auto" to detect it.
    kind: str = "auto"
    # The host role the output came from (loadgen, proxy, upstream...).
    role: str | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_.-]*$")


class ImportPreviewRequest(RequestModel):
    files: list[ImportFile] = Field(min_length=1, max_length=100)

    @field_validator("files", mode="after")
    @classmethod
    def _text_only(cls, files: list[ImportFile]) -> list[ImportFile]:
        """A NUL in a file's text is a binary file read as text: say which file, where, and what it likely is."""
        for index, f in enumerate(files, 1):
            at = f.content.find(NUL)
            if at >= 0:
                line = f.content.count("\n", 0, at) + 1
                raise PydanticCustomError(
                    UNSTORABLE, "file {index} ({name}) contains a NUL byte (\\0) at line {line}; perflab stores "
                    "text — is this a binary file?", {"index": index, "name": f.name, "line": line})
        return files


class FilePreview(BaseModel):
    name: str
    kind: str | None
    role: str
    ok: bool
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)
    # A few headline values so the user can check the parse before saving.
    preview: dict[str, Any] = Field(default_factory=dict)
    # A file holding several tools' outputs yields one entry per part: where it sits in the file,
    # its first lines, and whether it was imported (lines no parser knows are reported, not imported).
    start_line: int | None = None
    end_line: int | None = None
    excerpt: list[str] = Field(default_factory=list)
    imported: bool = True
    # Not read, kept as an attachment of the run (downloadable from the run page), and why.
    attachment: bool = False
    note: str | None = None
    # Once imported: the attachment holding it.
    attachment_id: int | None = None


class ImportPreview(BaseModel):
    files: list[FilePreview]


class ImportRequest(ImportPreviewRequest):
    experiment: str = Field(min_length=1, max_length=200)
    label: str = Field(default="", max_length=200)
    hypothesis: str = Field(default="", max_length=20000)


class ImportResult(BaseModel):
    run_id: uuid.UUID
    duplicate: bool
    experiment_id: int
    files: list[FilePreview]


class AttachmentRead(BaseModel):
    """A file (or part of a paste) an import kept without reading it, with the reason."""

    id: int
    name: str
    role: str
    size_bytes: int
    content_type: str
    note: str
    download_url: str
