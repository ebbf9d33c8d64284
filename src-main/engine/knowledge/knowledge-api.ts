// Engine.knowledge: what the faces get of the knowledge room — plain-data methods over the
// service (sources, search, get), never the service or its sources.
import type {
  KnowledgeApi,
  KnowledgeGetRequest,
  KnowledgeGetResponse,
  KnowledgeScope,
  KnowledgeSearchRequest,
  KnowledgeSearchResponse,
  KnowledgeSourceInfo,
} from '../types/knowledge.js';
import type { KnowledgeService } from './knowledge-service.js';

export class EngineKnowledge implements KnowledgeApi {
  constructor(private readonly service: KnowledgeService) {}

  sources(scope?: KnowledgeScope): Promise<KnowledgeSourceInfo[]> {
    return this.service.sources(scope);
  }

  search(request: KnowledgeSearchRequest, scope?: KnowledgeScope): Promise<KnowledgeSearchResponse> {
    return this.service.search(request, scope);
  }

  get(request: KnowledgeGetRequest, scope?: KnowledgeScope): Promise<KnowledgeGetResponse> {
    return this.service.get(request, scope);
  }
}
