"""A kernel result's images as MCP image content, and both MCP servers that run code sending them alike."""

from __future__ import annotations

from lakeboard.common.execution_images import image_content
from lakeboard.host.gateway.server import _content as gateway_content
from lakeboard.schemas.execution import DisplayData, ExecutionResult
from lakeboard.servers.kernel.server import to_tool_result

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
RESULT = ExecutionResult(sandboxed=True, display=[
    DisplayData(data={"image/png": PNG[:40] + "\n" + PNG[40:], "text/plain": "<Figure size 640x480>"}),
    DisplayData(data={"text/html": "<b>table</b>", "text/plain": "table"}),
    DisplayData(data={"image/svg+xml": "<svg/>"}),
    DisplayData(data={"image/gif": "R0lGODlhAQABAAAAACw=", "image/webp": "UklGRg=="}),
])


def test_each_displayed_image_in_order_with_its_type() -> None:
    images = image_content(RESULT)
    assert [(i.type, i.mime_type) for i in images] == [("image", "image/png"), ("image", "image/gif"), ("image", "image/webp")]
    assert images[0].data == PNG  # one line of base64
    assert image_content(ExecutionResult(sandboxed=True, stdout="no pictures")) == []


def test_the_kernel_server_and_the_gateway_send_the_same_images() -> None:
    from_kernel = to_tool_result(RESULT).content
    from_gateway = gateway_content(RESULT)
    assert from_kernel[0].type == from_gateway[0].type == "text"
    assert from_kernel[1:] == from_gateway[1:] == image_content(RESULT)
