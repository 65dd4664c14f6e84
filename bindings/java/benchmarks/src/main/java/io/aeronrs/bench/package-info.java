/** JMH benchmarks of aeronrs-java against Java Aeron on the same aeronrs media driver. */
package io.aeronrs.bench;
