package aeronrs.interop;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.Subscription;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Java peer for aeronrs's response channel tests (request/response over control-mode=response).
 * Modes (Aeron directory from -Daeron.dir or AERON_DIR; the driver must enable experimental
 * features):
 *   server REQUEST_ENDPOINT RESPONSE_CONTROL CLIENTS COUNT
 *       subscribes to aeron:udp?endpoint=REQUEST_ENDPOINT (stream 10); for each request image
 *       publishes on aeron:udp?control=RESPONSE_CONTROL|control-mode=response|term-length=64k|
 *       response-correlation-id=IMAGE_CORRELATION_ID (stream 11) and answers every request with
 *       the request followed by the image's session id (int32 LE). Prints READY once
 *       subscribed, DONE n after answering COUNT requests from each of CLIENTS images, then
 *       keeps its publications until stdin closes.
 *   client REQUEST_ENDPOINT RESPONSE_CONTROL FIRST CLIENTS COUNT
 *       clients FIRST..FIRST+CLIENTS-1, each a response subscription
 *       aeron:udp?control=RESPONSE_CONTROL|control-mode=response and a request publication
 *       aeron:udp?endpoint=REQUEST_ENDPOINT|term-length=64k|response-correlation-id=SUBSCRIPTION_ID;
 *       each sends
 *       COUNT requests and checks it gets exactly its own answers, once, in order. Prints
 *       CONNECTED when all are connected and DONE n at the end; exits 0 only if all checks held.
 * Request seq of client c: c (int32 LE), seq (int32 LE), then "request <seq> of client <c>".
 */
public final class Response
{
    static final int REQUEST_STREAM = 10;
    static final int RESPONSE_STREAM = 11;
    static final long BOUND_NS = 120_000_000_000L;

    public static void main(final String[] args) throws Exception
    {
        if (args.length >= 5 && args[0].equals("server"))
        {
            serve(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        }
        else if (args.length >= 6 && args[0].equals("client"))
        {
            request(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
        }
        else
        {
            System.err.println("usage: Response server REQUEST_ENDPOINT RESPONSE_CONTROL CLIENTS COUNT |" +
                " client REQUEST_ENDPOINT RESPONSE_CONTROL FIRST CLIENTS COUNT");
            System.exit(2);
        }
    }

    static byte[] requestBytes(final int client, final int seq)
    {
        final byte[] text = ("request " + seq + " of client " + client).getBytes(StandardCharsets.UTF_8);
        final ByteBuffer bytes = ByteBuffer.allocate(8 + text.length).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(client).putInt(seq).put(text);
        return bytes.array();
    }

    static byte[] responseBytes(final byte[] request, final int requestSessionId)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(request.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        bytes.put(request).putInt(requestSessionId);
        return bytes.array();
    }

    static void checkDeadline(final long deadline, final String what)
    {
        if (System.nanoTime() > deadline)
        {
            throw new IllegalStateException("timed out: " + what);
        }
    }

    static void pause()
    {
        try
        {
            Thread.sleep(0, 200_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** One request image the server answers. */
    static final class Answerer
    {
        final int sessionId;
        Publication publication;
        final ArrayDeque<byte[]> backlog = new ArrayDeque<>();
        int answered;

        Answerer(final int sessionId)
        {
            this.sessionId = sessionId;
        }
    }

    private static void serve(final String requestEndpoint, final String responseControl, final int clients, final int count)
        throws Exception
    {
        try (Aeron aeron = Interop.connect();
            Subscription sub = aeron.addSubscription("aeron:udp?endpoint=" + requestEndpoint, REQUEST_STREAM))
        {
            Interop.say("READY");
            final Map<Long, Answerer> byImage = new HashMap<>();
            final Map<Integer, Answerer> bySession = new HashMap<>();
            final UnsafeBuffer out = new UnsafeBuffer(new byte[4096]);
            final long deadline = System.nanoTime() + BOUND_NS;
            long total = 0;
            while (total < (long)clients * count)
            {
                checkDeadline(deadline, "server answered " + total + " of " + (long)clients * count);
                int work = 0;
                for (final Image image : sub.images())
                {
                    if (!byImage.containsKey(image.correlationId()))
                    {
                        final Answerer answerer = new Answerer(image.sessionId());
                        answerer.publication = aeron.addPublication(
                            "aeron:udp?control=" + responseControl + "|control-mode=response|term-length=64k|response-correlation-id=" +
                            image.correlationId(), RESPONSE_STREAM);
                        byImage.put(image.correlationId(), answerer);
                        bySession.put(image.sessionId(), answerer);
                        work++;
                    }
                }
                work += sub.poll((buffer, offset, length, header) ->
                {
                    final Answerer answerer = bySession.get(header.sessionId());
                    if (answerer == null)
                    {
                        throw new IllegalStateException("a request from unknown session " + header.sessionId());
                    }
                    final byte[] request = new byte[length];
                    buffer.getBytes(offset, request);
                    answerer.backlog.add(responseBytes(request, header.sessionId()));
                }, 64);
                for (final Answerer answerer : byImage.values())
                {
                    while (!answerer.backlog.isEmpty())
                    {
                        final byte[] answer = answerer.backlog.peek();
                        out.putBytes(0, answer);
                        final long result = answerer.publication.offer(out, 0, answer.length);
                        if (result < 0)
                        {
                            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
                            {
                                throw new IllegalStateException("offer failed: " + result);
                            }
                            break;
                        }
                        answerer.backlog.poll();
                        answerer.answered++;
                        total++;
                        work++;
                    }
                }
                if (work == 0)
                {
                    pause();
                }
            }
            if (byImage.size() != clients)
            {
                throw new IllegalStateException("answered " + byImage.size() + " request images, expected " + clients);
            }
            Interop.say("DONE " + total);
            final InputStream in = System.in;
            while (in.read() != -1)
            {
                // keep the response publications until the test closes our stdin
            }
            for (final Answerer answerer : byImage.values())
            {
                answerer.publication.close();
            }
        }
    }

    /** One requesting client. */
    static final class Requester
    {
        final int index;
        final Subscription responses;
        final Publication requests;
        int nextResponse;

        Requester(final int index, final Subscription responses, final Publication requests)
        {
            this.index = index;
            this.responses = responses;
            this.requests = requests;
        }

        int poll()
        {
            return responses.poll((buffer, offset, length, header) ->
            {
                final byte[] expected = responseBytes(requestBytes(index, nextResponse), requests.sessionId());
                final byte[] actual = new byte[length];
                buffer.getBytes(offset, actual);
                if (!java.util.Arrays.equals(expected, actual))
                {
                    throw new IllegalStateException("client " + index + ": response " + nextResponse + " differs");
                }
                nextResponse++;
            }, 64);
        }
    }

    private static void request(
        final String requestEndpoint, final String responseControl, final int first, final int clients, final int count)
    {
        try (Aeron aeron = Interop.connect())
        {
            final List<Requester> requesters = new ArrayList<>();
            for (int i = first; i < first + clients; i++)
            {
                final Subscription responses = aeron.addSubscription(
                    "aeron:udp?control=" + responseControl + "|control-mode=response", RESPONSE_STREAM);
                final Publication requests = aeron.addPublication(
                    "aeron:udp?endpoint=" + requestEndpoint + "|term-length=64k|response-correlation-id=" +
                    responses.registrationId(),
                    REQUEST_STREAM);
                requesters.add(new Requester(i, responses, requests));
            }
            final long deadline = System.nanoTime() + BOUND_NS;
            while (!requesters.stream().allMatch(r -> r.requests.isConnected() && r.responses.isConnected()))
            {
                checkDeadline(deadline, "clients connecting");
                pause();
            }
            for (final Requester r : requesters)
            {
                if (r.responses.imageCount() != 1)
                {
                    throw new IllegalStateException("client " + r.index + ": " + r.responses.imageCount() + " images");
                }
            }
            Interop.say("CONNECTED");
            final UnsafeBuffer out = new UnsafeBuffer(new byte[4096]);
            for (int seq = 0; seq < count; seq++)
            {
                for (final Requester r : requesters)
                {
                    final byte[] bytes = requestBytes(r.index, seq);
                    out.putBytes(0, bytes);
                    long result;
                    while ((result = r.requests.offer(out, 0, bytes.length)) < 0)
                    {
                        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
                        {
                            throw new IllegalStateException("offer failed: " + result);
                        }
                        checkDeadline(deadline, "client " + r.index + " offering");
                        pause();
                    }
                    r.poll();
                }
            }
            long received = 0;
            while (requesters.stream().anyMatch(r -> r.nextResponse < count))
            {
                checkDeadline(deadline, "responses");
                int work = 0;
                for (final Requester r : requesters)
                {
                    work += r.poll();
                }
                if (work == 0)
                {
                    pause();
                }
            }
            for (final Requester r : requesters)
            {
                received += r.nextResponse;
            }
            Interop.say("DONE " + received);
        }
    }
}
