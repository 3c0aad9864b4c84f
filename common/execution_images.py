"""A kernel result's images as MCP image content, the same from the kernel server and the gateway."""

from __future__ import annotations

from mcp_types import ImageContent

from lakeboard.schemas.execution import IMAGE_TYPES, ExecutionResult


def image_content(result: ExecutionResult) -> list[ImageContent]:
    """Each image the cell displayed, in display order (each of its image formats, if several)."""
    images: list[ImageContent] = []
    for item in result.display:
        for mime in IMAGE_TYPES:
            data = item.data.get(mime)
            if isinstance(data, str):
                # Jupyter may wrap base64 in lines; MCP image data is one string
                images.append(ImageContent(type="image", data=data.replace("\n", ""), mime_type=mime))
    return images
