package io.aeronrs;

import io.aeronrs.bus.MappedBusConfig;
import io.aeronrs.bus.MappedBusReader;
import io.aeronrs.bus.MappedBusRecord;
import io.aeronrs.bus.MappedBusWriter;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The persistent mapped bus: every record once, in order, across segments and reopens. */
@Timeout(60)
class MappedBusTest
{
    private final Path dir = TestSupport.tempDir("bus");

    @AfterEach
    void cleanUp()
    {
        TestSupport.deleteRecursively(dir);
    }

    @Test
    void variableLengthRecordsAcrossSegmentsReplayedAndResumed()
    {
        final Path bus = dir.resolve("bus");
        final MappedBusConfig config = new MappedBusConfig().segmentLength(64 * 1024).prefault(false);
        assertEquals(MappedBusConfig.RecordMode.VARIABLE_LENGTH, config.recordMode());
        final int count = 2000;
        long resumeSegment = 0;
        long resumeOffset = 0;
        try (MappedBusWriter writer = MappedBusWriter.open(bus, config))
        {
            final UnsafeBuffer heap = new UnsafeBuffer(new byte[200]);
            final UnsafeBuffer direct = new UnsafeBuffer(BufferUtil.allocateDirectAligned(200, 64));
            for (int i = 0; i < count; i++)
            {
                final UnsafeBuffer buffer = i % 2 == 0 ? heap : direct;
                TestSupport.fill(buffer, i, 8 + i % 100);
                assertTrue(writer.write(buffer, 0, 8 + i % 100));
            }
            writer.flush();
            assertTrue(writer.lastSegment() > 0, "64 KiB segments: the records span several");
        }
        final MappedBusRecord record = new MappedBusRecord();
        try (MappedBusReader reader = MappedBusReader.open(bus, config, MappedBusReader.Start.REPLAY))
        {
            for (int i = 0; i < count; i++)
            {
                assertTrue(reader.poll(record), "record " + i);
                assertEquals(8 + i % 100, record.metadata());
                assertTrue(TestSupport.matches(record.body(), 0, record.length(), i, 8 + i % 100), "record " + i);
                if (i == 999)
                {
                    resumeSegment = reader.positionSegment();
                    resumeOffset = reader.positionOffset();
                }
            }
            assertFalse(reader.poll(record));
            assertTrue(reader.hasRecovered());
        }
        try (MappedBusReader reader = MappedBusReader.open(bus, config, MappedBusReader.Start.AT_POSITION,
            resumeSegment, resumeOffset))
        {
            assertTrue(reader.poll(record));
            assertTrue(TestSupport.matches(record.body(), 0, record.length(), 1000, 8 + 1000 % 100));
        }
    }

    @Test
    void fixedSizeTypedRecords()
    {
        final Path bus = dir.resolve("fixed");
        final MappedBusConfig config = new MappedBusConfig()
            .recordMode(MappedBusConfig.RecordMode.FIXED_SIZE).recordSize(16).segmentLength(4096).prefault(false);
        try (MappedBusWriter writer = MappedBusWriter.open(bus, config);
            MappedBusReader live = MappedBusReader.open(bus, config, MappedBusReader.Start.LIVE))
        {
            final UnsafeBuffer body = new UnsafeBuffer(new byte[16]);
            for (int i = 0; i < 10; i++)
            {
                body.putLong(0, i * 11L);
                assertTrue(writer.writeTyped(100 + i, body, 0, 12));
            }
            final MappedBusRecord record = new MappedBusRecord();
            for (int i = 0; i < 10; i++)
            {
                assertTrue(live.poll(record));
                assertEquals(100 + i, record.metadata());
                assertEquals(16, record.length(), "fixed size: the whole record body");
                assertEquals(i * 11L, record.body().getLong(0));
            }
            assertFalse(live.poll(record));
        }
    }
}
