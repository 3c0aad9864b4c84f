"""Scoring Lakeboard against workloads in KramaBench's format."""
