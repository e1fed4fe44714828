"""Helpers the family tests share: kernel builds, reference models, model builders."""
