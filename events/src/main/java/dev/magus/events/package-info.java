/** The diagnostic model: codes, diagnostics and run events, shared by every module. */
package dev.magus.events;
